"""xls (BIFF, Excel 97-2003) → ``## Sheet: <name>`` and a Markdown table per sheet.

Read with xlrd, on demand (one sheet in memory at a time). ``formatting_info=True`` is what
makes xlrd report merged cells; some writers produce formatting records xlrd cannot read,
and the workbook is then read again without them (no merges listed, values unchanged). Date
cells (number cells with a date format) become ISO dates; an encrypted workbook (a FILEPASS
record) is refused as password-protected.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import xlrd

from server.docreader.errors import DocReaderError, ParseError
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.library_errors import library_errors
from server.docreader.parsers.sheets.cells import cell_text, number_text
from server.docreader.parsers.sheets.merges import MergedRange
from server.docreader.parsers.sheets.workbook_writer import WorkbookWriter

_ENCRYPTED = "Workbook is encrypted"


class XlsParser:
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        book = _open(source)
        try:
            writer = WorkbookWriter(sink, options)
            for index in range(book.nsheets):
                with library_errors("xls sheet"):
                    sheet = book.sheet_by_index(index)
                merges = [
                    MergedRange(first_row, first_col, end_row - 1, end_col - 1)
                    for first_row, end_row, first_col, end_col in sheet.merged_cells
                ]
                writer.add_sheet(
                    sheet.name, _rows(sheet, book.datemode), merges, hidden=sheet.visibility != 0
                )
                book.unload_sheet(index)
            writer.finish()
        finally:
            book.release_resources()


class _Discard:
    """xlrd logs warnings to stdout by default; they go nowhere instead."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def _open(source: Path) -> Any:
    try:
        return _open_book(source, formatting_info=True)
    except (DocReaderError, MemoryError):
        raise
    except Exception:
        # Formatting records xlrd cannot read: retry for the values alone.
        with library_errors("xls workbook"):
            return _open_book(source, formatting_info=False)


def _open_book(source: Path, *, formatting_info: bool) -> Any:
    try:
        return xlrd.open_workbook(
            str(source),
            logfile=_Discard(),
            formatting_info=formatting_info,
            on_demand=True,
            ragged_rows=True,
        )
    except xlrd.XLRDError as err:
        if str(err) == _ENCRYPTED:
            raise ParseError(
                "the xls is password-protected (encrypted); remove the password"
            ) from err
        raise


def _rows(sheet: Any, datemode: int) -> Iterator[list[str]]:
    for index in range(sheet.nrows):
        types = sheet.row_types(index)
        values = sheet.row_values(index)
        yield [
            value if kind == xlrd.XL_CELL_TEXT else _cell(kind, value, datemode)
            for kind, value in zip(types, values, strict=True)
        ]


def _cell(kind: int, value: Any, datemode: int) -> str:
    if kind == xlrd.XL_CELL_NUMBER:
        return number_text(value)
    if kind == xlrd.XL_CELL_DATE:
        return _date_text(value, datemode)
    if kind == xlrd.XL_CELL_BOOLEAN:
        return cell_text(bool(value))
    if kind == xlrd.XL_CELL_ERROR:
        return str(xlrd.error_text_from_code.get(value, "#ERROR!"))
    return cell_text(value)


def _date_text(value: float, datemode: int) -> str:
    try:
        year, month, day, hour, minute, second = xlrd.xldate_as_tuple(value, datemode)
    except xlrd.xldate.XLDateError:
        return number_text(value)  # A date format on a number no calendar can show.
    time = datetime.time(hour, minute, second)
    if not year:
        return time.isoformat()
    return cell_text(datetime.datetime.combine(datetime.date(year, month, day), time))
