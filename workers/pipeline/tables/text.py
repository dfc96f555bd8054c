"""The text of the data-table chunks: what is embedded, indexed and shown for a table.

A ``table_summary`` chunk names the table, its size and its columns with their types,
then a paragraph a ``TableSummarizer`` writes. The default one, ``ProfileSummarizer``,
writes it from the profile alone; an LLM-written paragraph plugs in as another
summarizer without changing the chunks around it. A ``table_column`` chunk is one
column's profile as sentences, so a question about a column finds it by its name and
its numbers.
"""

from __future__ import annotations

from typing import Protocol

from workers.pipeline.tables.profile import ColumnProfile, ColumnType, TableProfile

# The summary lists and describes at most this many columns; the column chunks cover all.
MAX_LISTED_COLUMNS = 100
_NUMERIC = (ColumnType.INTEGER, ColumnType.NUMBER)


class TableSummarizer(Protocol):
    def summarize(self, table: TableProfile, label: str) -> str:
        """A paragraph about ``table``, which the chunk calls ``label``."""
        ...


class ProfileSummarizer:
    """One sentence per column, from its statistics."""

    def summarize(self, table: TableProfile, label: str) -> str:
        if table.row_count == 0:
            return "The table has a header but no rows."
        shown = table.columns[:MAX_LISTED_COLUMNS]
        return " ".join(_column_sentence(column) for column in shown)


def table_label(
    table: TableProfile, document: str, *, position: int, count: int, workbook: bool
) -> str:
    """How the chunks name a table: by its sheet (or heading), else by its file, e.g.
    "sheet 'Q1' of 'sales.xlsx'", "table 'sales.csv'", "table 2 of 'report.md'"."""
    if table.title:
        kind = "sheet" if workbook else "table"
        return f"{kind} '{table.title}' of '{document}'"
    if count == 1:
        return f"table '{document}'"
    return f"table {position} of '{document}'"


def summary_text(table: TableProfile, label: str, paragraph: str) -> str:
    """The size, then the title and merged ranges the sheet has above its table, the
    columns, and ``paragraph``."""
    listed = ", ".join(f"{c.name} ({c.type})" for c in table.columns[:MAX_LISTED_COLUMNS])
    hidden = table.column_count - MAX_LISTED_COLUMNS
    if hidden > 0:
        listed += f", and {hidden} more"
    head = (
        f"{label[:1].upper()}{label[1:]}: {_count(table.row_count, 'row')} and "
        f"{_count(table.column_count, 'column')}."
    )
    title = f"Title: {table.caption}." if table.caption else ""
    merged = f"Merged cells: {table.merged_cells}." if table.merged_cells else ""
    parts = (head, title, merged, f"Columns: {listed}.", paragraph)
    return "\n".join(part for part in parts if part)


def column_text(column: ColumnProfile, label: str) -> str:
    head = f"Column '{column.name}' ({column.type}) in {label}"
    if column.type is ColumnType.EMPTY:
        return f"{head}: all {_count(column.cells, 'cell')} are empty."
    text = f"{head}: {_count(column.non_empty, 'value')}, {column.empty} empty, "
    text += f"{column.distinct} distinct"
    if column.long_text:
        text += (
            f"; long text of {column.min_length} to {column.max_length} characters. "
            f"Example: {_quoted(column.samples)}."
        )
        return text + (f" Repeated: {_frequencies(column)}." if column.top_values else "")
    if column.minimum is not None:
        stats = [f"min {column.minimum}", f"max {column.maximum}"]
        if column.mean is not None:
            stats += [f"mean {column.mean}", f"sum {column.total}"]
        return f"{text}; {', '.join(stats)}. Examples: {_quoted(column.samples)}."
    if _all_distinct(column):
        return f"{text}, none repeated. Examples: {_quoted(column.samples)}."
    return f"{text}; most frequent: {_frequencies(column)}."


def _column_sentence(column: ColumnProfile) -> str:
    name = f"'{column.name}'"
    if column.type is ColumnType.EMPTY:
        return f"{name} is empty."
    if column.type in _NUMERIC:
        return (
            f"{name} ranges from {column.minimum} to {column.maximum} "
            f"(mean {column.mean}, sum {column.total})."
        )
    if column.type is ColumnType.DATE:
        return f"{name} spans {column.minimum} to {column.maximum}."
    if column.long_text:
        return (
            f"{name} holds long text ({_count(column.non_empty, 'value')} of "
            f"{column.min_length} to {column.max_length} characters)."
        )
    if column.type is ColumnType.BOOLEAN:
        counts = dict(column.top_values)
        yes, no = counts.get("true", 0), counts.get("false", 0)
        return f"{name} is true in {_count(yes, 'row')} and false in {_count(no, 'row')}."
    if _all_distinct(column):
        return f"{name} holds {_count(column.distinct, 'distinct value')}, none repeated."
    return (
        f"{name} has {_count(column.distinct, 'distinct value')}, most often "
        f"{_frequencies(column, limit=3)}."
    )


def _all_distinct(column: ColumnProfile) -> bool:
    return column.type is ColumnType.TEXT and 1 < column.non_empty == column.distinct


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{value}'" for value in values)


def _frequencies(column: ColumnProfile, limit: int | None = None) -> str:
    shown = column.top_values[:limit] if limit is not None else column.top_values
    return ", ".join(f"'{value}' ({count})" for value, count in shown)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
