"""A spreadsheet cell value → the text a table shows for it.

Numbers read like Excel's General format: integral floats without ``.0`` and at most 15
significant digits (so binary noise such as ``3.3000000000000003`` becomes ``3.3``); booleans
are ``TRUE``/``FALSE``; dates and times are ISO 8601, a date at midnight being just the date.
"""

from __future__ import annotations

import datetime

# Beyond this an integral float no longer prints exactly as an integer; Excel switches too.
_LARGEST_PLAIN_INTEGER = 1e15


def cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return number_text(value)
    if isinstance(value, datetime.datetime):
        return datetime_text(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    # timedelta (duration formats) and anything else a library may hand back.
    return str(value)


def number_text(value: float) -> str:
    if value.is_integer() and abs(value) < _LARGEST_PLAIN_INTEGER:
        return str(int(value))
    return format(value, ".15g")


def datetime_text(value: datetime.datetime) -> str:
    if value.time() == datetime.time():
        return value.date().isoformat()
    return value.isoformat()
