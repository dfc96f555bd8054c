"""CSV → one Markdown table whose header is the first row.

The delimiter is the engine option ``delimiter`` when given, else sniffed among
``, ; TAB |`` (the simple engine does not sniff: comma unless told). Blank rows are dropped,
short rows padded; ``|`` and ``\\`` in cells are escaped and line breaks become ``<br>``.
"""

from __future__ import annotations

import csv
import io

from server.docreader.errors import ParseError
from server.docreader.parsers.base import ParsedDocument, ParseOptions
from server.docreader.parsers.text_decoding import decode_text, normalize_newlines

_SNIFF_SAMPLE_CHARS = 64 * 1024
_CANDIDATE_DELIMITERS = ",;\t|"


class CsvParser:
    def __init__(self, *, sniff_delimiter: bool = True) -> None:
        self._sniff = sniff_delimiter

    def parse(self, content: bytes, options: ParseOptions) -> ParsedDocument:
        text = normalize_newlines(decode_text(content))
        delimiter = self._delimiter(text, options)
        try:
            rows = [
                row
                for row in csv.reader(io.StringIO(text), delimiter=delimiter)
                if any(cell.strip() for cell in row)
            ]
        except csv.Error as err:
            raise ParseError(f"invalid CSV in {options.file_name or 'input'}: {err}") from err
        if not rows:
            return ParsedDocument(markdown="", metadata={"rows": "0", "columns": "0"})
        width = max(len(row) for row in rows)
        lines = [_row(rows[0], width), _row(["---"] * width, width)]
        lines.extend(_row(row, width) for row in rows[1:])
        return ParsedDocument(
            markdown="\n".join(lines),
            metadata={"rows": str(len(rows) - 1), "columns": str(width), "delimiter": delimiter},
        )

    def _delimiter(self, text: str, options: ParseOptions) -> str:
        chosen = options.engine_options.get("delimiter", "")
        if chosen:
            if len(chosen) != 1:
                raise ParseError(f"the delimiter option must be one character, got {chosen!r}")
            return chosen
        if not self._sniff:
            return ","
        try:
            dialect = csv.Sniffer().sniff(text[:_SNIFF_SAMPLE_CHARS], _CANDIDATE_DELIMITERS)
        except csv.Error:
            return ","
        return str(dialect.delimiter)


def _row(cells: list[str], width: int) -> str:
    padded = [_cell(cell) for cell in cells] + [""] * (width - len(cells))
    return "| " + " | ".join(padded) + " |"


def _cell(value: str) -> str:
    escaped = value.strip().replace("\\", "\\\\").replace("|", "\\|")
    return escaped.replace("\n", "<br>")
