"""A deterministic profile of a table: per column its inferred type and statistics.

A column's type is the narrowest one every non-empty cell fits: boolean, then integer,
number, date, else text; a column without values is ``empty``. One cell that does not fit
makes the column text (mixed columns are described by their frequent values, not by
statistics that would leave cells out). Values shown are rendered for people: numbers
without exponent or thousands separators (the mean rounded to 6 decimals), dates as ISO
8601 (without a time when every value is at midnight), long text shortened.

A text column of long values (notes, descriptions: a median over ``LONG_TEXT_CHARS``) is
described by the lengths of its values, with one shortened example and only the values
that repeat: quoting five of them in its column chunk and three again in the summary would
fill both with the column's text, which the text chunks already hold, and pull every
question about that text to the profiles instead of the rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Context, Decimal
from enum import StrEnum

from workers.pipeline.markdown.tables import MarkdownTable
from workers.pipeline.tables.cell_values import is_missing, parse_boolean, parse_dates, parse_number

TOP_VALUES = 5
SAMPLE_VALUES = 5
MAX_SHOWN_CHARS = 80
LONG_TEXT_CHARS = 60
# A long-text column shows its values this short, and only one as an example.
LONG_SHOWN_CHARS = 40
MEAN_DECIMALS = 6


class ColumnType(StrEnum):
    INTEGER = "integer"
    NUMBER = "number"
    DATE = "date"
    BOOLEAN = "boolean"
    TEXT = "text"
    EMPTY = "empty"


@dataclass(frozen=True)
class ColumnProfile:
    name: str
    type: ColumnType
    # Cells in the column (the table's rows) and those holding a value.
    cells: int
    non_empty: int
    distinct: int
    # Integer, number and date columns; mean and total only for integer and number.
    minimum: str | None = None
    maximum: str | None = None
    mean: str | None = None
    total: str | None = None
    # Text and boolean columns: the most frequent values with their counts, most first.
    top_values: tuple[tuple[str, int], ...] = ()
    # The first distinct values, as written.
    samples: tuple[str, ...] = ()
    # Text columns of long values: the shortest and longest value, in characters.
    long_text: bool = False
    min_length: int = 0
    max_length: int = 0

    @property
    def empty(self) -> int:
        return self.cells - self.non_empty


@dataclass(frozen=True)
class TableProfile:
    title: str
    row_count: int
    columns: tuple[ColumnProfile, ...]
    # The table's title lines and merged ranges, as written above it (see markdown.tables).
    caption: str = ""
    merged_cells: str = ""

    @property
    def column_count(self) -> int:
        return len(self.columns)


def profile_table(table: MarkdownTable) -> TableProfile:
    names = column_names(table.header)
    columns = tuple(
        profile_column(name, [row[i] for row in table.rows]) for i, name in enumerate(names)
    )
    return TableProfile(table.title, len(table.rows), columns, table.caption, table.merged_cells)


def column_names(header: Sequence[str]) -> list[str]:
    """Header cells as names: blank ones numbered, repeated ones told apart."""
    names: list[str] = []
    seen: Counter[str] = Counter()
    for position, cell in enumerate(header, start=1):
        base = cell.strip() or f"Column {position}"
        seen[base] += 1
        names.append(base if seen[base] == 1 else f"{base} ({seen[base]})")
    return names


def profile_column(name: str, cells: Sequence[str]) -> ColumnProfile:
    values = [cell.strip() for cell in cells if not is_missing(cell)]
    base = ColumnProfile(name, ColumnType.EMPTY, len(cells), len(values), 0)
    if not values:
        return base
    samples = _shorten_all(list(dict.fromkeys(values))[:SAMPLE_VALUES])
    booleans = [parse_boolean(value) for value in values]
    if all(b is not None for b in booleans):
        counts = Counter("true" if b else "false" for b in booleans)
        return _with(base, ColumnType.BOOLEAN, len(counts), samples, top=counts)
    numbers = _numbers(values)
    if numbers is not None:
        decimals, integral = numbers
        kind = ColumnType.INTEGER if integral else ColumnType.NUMBER
        total = sum(decimals, Decimal(0))
        return ColumnProfile(
            name,
            kind,
            len(cells),
            len(values),
            len(set(decimals)),
            minimum=render_number(min(decimals)),
            maximum=render_number(max(decimals)),
            mean=render_number(total / len(decimals)),
            total=render_number(total),
            samples=samples,
        )
    dates = parse_dates(values)
    if dates is not None:
        with_time = any(d != d.replace(hour=0, minute=0, second=0, microsecond=0) for d in dates)
        return ColumnProfile(
            name,
            ColumnType.DATE,
            len(cells),
            len(values),
            len(set(dates)),
            minimum=render_date(min(dates), with_time),
            maximum=render_date(max(dates), with_time),
            samples=samples,
        )
    counts = Counter(values)
    lengths = sorted(len(value) for value in values)
    if lengths[len(lengths) // 2] > LONG_TEXT_CHARS:
        repeated = [(value, n) for value, n in counts.most_common(TOP_VALUES) if n > 1]
        return ColumnProfile(
            name,
            ColumnType.TEXT,
            len(cells),
            len(values),
            len(counts),
            top_values=tuple((_shorten(v, LONG_SHOWN_CHARS), n) for v, n in repeated),
            samples=(_shorten(values[0], LONG_SHOWN_CHARS),),
            long_text=True,
            min_length=lengths[0],
            max_length=lengths[-1],
        )
    return _with(base, ColumnType.TEXT, len(counts), samples, top=counts)


def _numbers(values: Sequence[str]) -> tuple[list[Decimal], bool] | None:
    """The values as numbers and whether all are integers; None if one is not a number."""
    decimals: list[Decimal] = []
    integral = True
    for value in values:
        parsed = parse_number(value)
        if parsed is None:
            return None
        decimals.append(parsed[0])
        integral = integral and parsed[1]
    return decimals, integral


def _with(
    base: ColumnProfile,
    kind: ColumnType,
    distinct: int,
    samples: tuple[str, ...],
    *,
    top: Counter[str],
) -> ColumnProfile:
    # most_common keeps first-seen order among equal counts, so the profile is stable.
    shown = tuple((_shorten(value), count) for value, count in top.most_common(TOP_VALUES))
    return ColumnProfile(
        base.name,
        kind,
        base.cells,
        base.non_empty,
        distinct,
        top_values=shown,
        samples=samples,
    )


def render_number(value: Decimal) -> str:
    """Plain digits; more than MEAN_DECIMALS decimals (a mean, say) are rounded off."""
    # Enough precision for every digit kept, however long the number.
    context = Context(prec=len(value.as_tuple().digits) + MEAN_DECIMALS)
    exponent = value.normalize(context).as_tuple().exponent
    if isinstance(exponent, int) and -exponent > MEAN_DECIMALS:
        value = value.quantize(Decimal(1).scaleb(-MEAN_DECIMALS), context=context)
    if value == 0:
        return "0"  # not "-0"
    return f"{value.normalize(context):f}"


def render_date(value: datetime, with_time: bool) -> str:
    if not with_time:
        return value.date().isoformat()
    return value.isoformat(sep=" ", timespec="seconds")


def _shorten_all(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(_shorten(value) for value in values)


def _shorten(value: str, limit: int = MAX_SHOWN_CHARS) -> str:
    if len(value) <= limit:
        return value
    return value[: limit - 1].rstrip() + "…"
