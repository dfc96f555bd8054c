"""What a table cell's text means: empty, boolean, a number, a date — or just text.

Numbers: ``1234``, ``-3.5``, ``1e6``, thousands grouped by ``,`` or spaces with a ``.``
decimal point (``1,234.5``, ``1 234.5``), or grouped by ``.`` or spaces with a ``,``
decimal comma (``1.234,5``, ``3,5``); ``1,234`` is read the English way (one thousand two
hundred thirty-four). An integer with a leading zero (``007``, a code or a postcode) is
not a number. Numbers are ``Decimal``, so sums and means pick up no binary rounding; an
exponent has at most three digits, so no cell can overflow them.

Dates are read column by column: a column is dates when one format reads every value —
ISO 8601 (``2024-01-31``, ``2024-01-31 12:30``, ``2024-01-31T12:30:00Z``), then
``2024/01/31``, ``31.01.2024``, ``31/01/2024`` and ``01/31/2024`` (day first wins when both
read every value), each optionally with a time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from decimal import Decimal

# Cells that mean "no value" (as spreadsheets and pandas-made CSVs write it).
MISSING = frozenset({"", "null", "nan", "n/a", "#n/a"})
TRUE_WORDS = frozenset({"true", "yes"})
FALSE_WORDS = frozenset({"false", "no"})

_SPACES = " \u00a0\u202f"
_ENGLISH = re.compile(
    rf"^[+-]?(?:(?P<int>\d{{1,3}}(?:(?P<sep>[,{_SPACES}])\d{{3}})(?:(?P=sep)\d{{3}})*|\d+)"
    r"(?P<frac>\.\d*)?|(?P<bare>\.\d+))(?P<exp>[eE][+-]?\d{1,3})?$",
    re.ASCII,
)
_CONTINENTAL = re.compile(
    rf"^[+-]?(?P<int>\d{{1,3}}(?:(?P<sep>[.{_SPACES}])\d{{3}})(?:(?P=sep)\d{{3}})*|\d+)"
    r"(?P<frac>,\d+)?$",
    re.ASCII,
)
_ISO = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$",
    re.ASCII,
)
_TIME_SUFFIXES = ("", " %H:%M", " %H:%M:%S")


def is_missing(text: str) -> bool:
    return text.strip().lower() in MISSING


def parse_boolean(text: str) -> bool | None:
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return None


def parse_number(text: str) -> tuple[Decimal, bool] | None:
    """The value and whether it is written as an integer; None when it is not a number."""
    value = text.strip().replace("\u2212", "-")
    english = _ENGLISH.match(value)
    if english and not _leading_zero(english.group("int")):
        plain = value.replace(english.group("sep") or "\0", "")
        integral = not (english.group("frac") or english.group("bare") or english.group("exp"))
        return Decimal(plain), integral
    continental = _CONTINENTAL.match(value)
    if continental and not _leading_zero(continental.group("int")):
        plain = value.replace(continental.group("sep") or "\0", "").replace(",", ".")
        return Decimal(plain), not continental.group("frac")
    return None


def _leading_zero(integer: str | None) -> bool:
    return integer is not None and len(integer) > 1 and integer.startswith("0")


DateParser = Callable[[str], datetime | None]


def parse_dates(values: Sequence[str]) -> list[datetime] | None:
    """Every value read by one date format (naive, UTC when an offset was given); None
    when no format reads them all."""
    for parser in _DATE_PARSERS:
        parsed: list[datetime] = []
        for value in values:
            one = parser(value.strip())
            if one is None:
                break  # most columns that are not dates fail on their first value
            parsed.append(one)
        else:
            return parsed
    return None


def _iso(text: str) -> datetime | None:
    if not _ISO.match(text):
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        # Offsets differ between cells; compare them all in UTC.
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


def _formatted(date_format: str) -> DateParser:
    formats = [date_format + suffix for suffix in _TIME_SUFFIXES]

    def parse(text: str) -> datetime | None:
        for candidate in formats:
            try:
                return datetime.strptime(text, candidate)
            except ValueError:
                continue
        return None

    return parse


_DATE_PARSERS: tuple[DateParser, ...] = (
    _iso,
    _formatted("%Y/%m/%d"),
    _formatted("%d.%m.%Y"),
    _formatted("%d/%m/%Y"),
    _formatted("%m/%d/%Y"),
)
