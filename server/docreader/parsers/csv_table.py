"""CSV → one Markdown table, its header the first row (or ``Column 1..N`` without one).

The delimiter is the engine option ``delimiter`` when given, else sniffed among
``, ; TAB |`` (the simple engine does not sniff: comma unless told). Blank rows are dropped,
short rows padded; ``|`` and ``\\`` in cells are escaped and line breaks become ``<br>``.
Whether the first row is the header follows ``first_row_header`` (see
``sheets.header_option``); with a header, title rows above it (one value each, see
``sheets.title_rows``) become paragraphs above the table. The file is read whole, so its
size and longest line are checked against the limits first; the table is written to the
sink in batches of lines.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from server.docreader.errors import ParseError
from server.docreader.markdown.tables import write_table
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.sheets.header_option import first_row_header, generic_header
from server.docreader.parsers.sheets.title_rows import TitleRows, title_paragraph
from server.docreader.safety.limits import ParseLimits
from server.docreader.text.decoding import decode_text, normalize_newlines

_SNIFF_SAMPLE_CHARS = 64 * 1024
_CANDIDATE_DELIMITERS = ",;\t|"


class CsvParser:
    def __init__(self, *, sniff_delimiter: bool = True) -> None:
        self._sniff = sniff_delimiter

    def max_input_bytes(self, limits: ParseLimits) -> int:
        return limits.max_text_bytes

    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        name = options.file_name or "input"
        text = normalize_newlines(decode_text(_read(source, options.limits, name)))
        _check_lines(text, options.limits.max_line_chars, name)
        header = first_row_header(options)
        delimiter = self._delimiter(text, options)
        try:
            rows = [
                row
                for row in csv.reader(io.StringIO(text), delimiter=delimiter)
                if any(cell.strip() for cell in row)
            ]
        except csv.Error as err:
            raise ParseError(f"invalid CSV in {name}: {err}") from err
        titles = TitleRows(enabled=header)
        rows = [table_row for row in rows for table_row in titles.offer(row)] + titles.finish()
        width = max((len(row) for row in rows), default=0)
        sink.set_metadata("rows", str(max(len(rows) - (1 if header else 0), 0)))
        sink.set_metadata("columns", str(width))
        if not rows:
            return
        sink.set_metadata("delimiter", delimiter)
        for title in titles.titles:
            sink.write(title_paragraph(title) + "\n\n")
        head = rows[0] if header else generic_header(width)
        write_table(sink, head, rows[1:] if header else rows, width)

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


def _read(source: Path, limits: ParseLimits, name: str) -> bytes:
    try:
        size = source.stat().st_size
        if size > limits.max_text_bytes:
            raise ParseError(
                f"{name} is {size} bytes, over the {limits.max_text_bytes}-byte limit for CSV"
            )
        return source.read_bytes()
    except OSError as err:
        raise ParseError(f"{name} cannot be read: {err}") from err


def _check_lines(text: str, max_chars: int, name: str) -> None:
    if len(text) <= max_chars:
        return
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        if end - start > max_chars:
            raise ParseError(
                f"{name} has a line of {end - start} characters, over the {max_chars}-character "
                "limit: not a CSV table"
            )
        start = end + 1
