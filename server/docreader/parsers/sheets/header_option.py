"""Whether a table's first row is its header: the request's flag, or the engine option.

The engine option ``first_row_header`` ("true"/"false") overrides ``ParseOptions``; without a
header row the table gets a generic one (``Column 1`` … ``Column N``), because a GFM table
must have a header and the first row must then stay data.
"""

from __future__ import annotations

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParseOptions

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})


def first_row_header(options: ParseOptions) -> bool:
    raw = options.engine_options.get("first_row_header", "")
    value = raw.strip().lower()
    if not value:
        return options.first_row_header
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ParseError(f"the first_row_header option must be true or false, got {raw!r}")


def generic_header(width: int) -> list[str]:
    return [f"Column {index}" for index in range(1, width + 1)]
