"""Import rows from a received file, one at a time (a file is never read into memory whole):
CSV (UTF-8, a byte order mark allowed) and XLSX (the first sheet; openpyxl in read-only
mode, after the zip bomb checks the docreader applies) have a header row, then one entry
per row; JSON is an array of objects, decoded one object at a time.

A file that cannot be read as such is INVALID_ARGUMENT naming the row; a row whose cells
are merely wrong is still a row (the import task fails it)."""

from __future__ import annotations

import codecs
import csv
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openpyxl

from core.errors import InvalidArgument
from core.faq_import_rows import ImportRow
from server.services.faq_files.columns import field_of, header_fields, row_from_cells

FORMATS = ("csv", "json", "xlsx")
_READ_CHARS = 1 << 16
# Zip bomb limits of an XLSX workbook (those the docreader applies to office files).
_MAX_MEMBERS = 10_000
_MAX_UNZIPPED_BYTES = 1 << 30
_MAX_RATIO = 200
# What surrogateescape decodes a byte that is not UTF-8 to.
_UNDECODED = re.compile("[\udc80-\udcff]")


def read_rows(path: Path, file_format: str) -> Iterator[ImportRow]:
    if file_format == "csv":
        return _csv_rows(path)
    if file_format == "xlsx":
        return _xlsx_rows(path)
    return _json_rows(path)


def _bad(row_number: int, message: str) -> InvalidArgument:
    return InvalidArgument.field("data", f"row {row_number}: {message}")


def _csv_rows(path: Path) -> Iterator[ImportRow]:
    # Bytes that are not UTF-8 are kept as lone surrogates while the text is decoded ahead
    # in blocks, so the row that holds them is the one named.
    with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as text:
        # strict: a stray or unclosed quote is an error, not a row swallowing the rest.
        reader = csv.reader(text, strict=True)
        try:
            headers = next(reader, None)
            if headers is None:
                raise _bad(1, "the file is empty: a header row is required")
            _check_utf8(1, headers)
            fields = header_fields(headers)
            # Numbered as a spreadsheet numbers them: a cell's line breaks do not count.
            for number, cells in enumerate(reader, start=2):
                _check_utf8(number, cells)
                if any(cell.strip() for cell in cells):
                    yield _tabular_row(number, headers, fields, cells)
        except csv.Error as exc:
            raise _bad(reader.line_num, f"not valid CSV: {exc}") from exc


def _check_utf8(row_number: int, cells: list[str]) -> None:
    if any(_UNDECODED.search(cell) for cell in cells):
        raise _bad(row_number, "the file is not UTF-8 text")


def _xlsx_rows(path: Path) -> Iterator[ImportRow]:
    try:
        _check_archive(path)
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise _bad(1, f"not a readable XLSX workbook: {exc}") from exc
    try:
        sheet = workbook.worksheets[0]
        rows = sheet.iter_rows(values_only=True)
        first = next(rows, None)
        if first is None:
            raise _bad(1, "the first sheet is empty: a header row is required")
        headers = [_cell_text(value) for value in first]
        fields = header_fields(headers)
        for number, values in enumerate(rows, start=2):
            cells = [_cell_text(value) for value in values]
            if any(cell.strip() for cell in cells):
                yield _tabular_row(number, headers, fields, cells)
    finally:
        workbook.close()


def _check_archive(path: Path) -> None:
    """The workbook's zip directory checked before openpyxl inflates anything: a zip bomb
    (too many members, too much declared, a member compressed past any real spreadsheet's
    ratio) is refused. zipfile holds each member to its declared size as it inflates it."""
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
    declared = sum(member.file_size for member in members)
    bomb = len(members) > _MAX_MEMBERS or declared > _MAX_UNZIPPED_BYTES
    bomb = bomb or any(
        member.file_size > _MAX_RATIO * max(member.compress_size, 1) for member in members
    )
    if bomb:
        raise _bad(1, "the workbook inflates past what a spreadsheet of FAQ entries needs")


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _tabular_row(
    row_number: int, headers: list[str], fields: dict[int, str], cells: list[str]
) -> ImportRow:
    named = {name: cells[index] for index, name in fields.items() if index < len(cells)}
    columns = {
        header or f"column {index + 1}": cells[index] if index < len(cells) else ""
        for index, header in enumerate(headers)
    }
    return row_from_cells(row_number, named, columns)


def _json_rows(path: Path) -> Iterator[ImportRow]:
    for number, item in enumerate(_json_array_items(path), start=1):
        if not isinstance(item, dict):
            raise _bad(
                number, f"each item of the array must be an object, not {type(item).__name__}"
            )
        yield _json_row(number, item)


def _json_row(row_number: int, item: dict[str, Any]) -> ImportRow:
    named: dict[str, str] = {}
    columns: dict[str, str] = {}
    for key, value in item.items():
        if isinstance(value, list):
            text = "##".join(str(part) for part in value)
        elif value is None:
            text = ""
        elif isinstance(value, bool):
            text = "TRUE" if value else "FALSE"
        else:
            text = str(value)
        columns[str(key)] = text
        name = field_of(str(key))
        if name is not None:
            named[name] = text
    row = row_from_cells(row_number, named, columns)
    tag_id = item.get("tag_id")
    if isinstance(tag_id, str) and tag_id.strip():
        return ImportRow(**{**vars(row), "tag_id": tag_id.strip()})
    return row


def _json_array_items(path: Path) -> Iterator[Any]:
    """The items of the top-level JSON array, decoded one at a time from a buffer of at most
    one item plus a read's worth of text."""
    decoder = json.JSONDecoder()
    reader = codecs.getincrementaldecoder("utf-8-sig")()
    buffer, position, index, done = "", 0, 0, False
    started = False
    with path.open("rb") as raw:

        def more() -> bool:
            nonlocal buffer, position, done
            if done:
                return False
            block = raw.read(_READ_CHARS)
            try:
                text = reader.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                raise _bad(index + 1, f"the file is not UTF-8 text ({exc.reason})") from exc
            done = not block
            buffer = buffer[position:] + text
            position = 0
            return True

        def skip_space() -> bool:
            nonlocal position
            while True:
                while position < len(buffer) and buffer[position].isspace():
                    position += 1
                if position < len(buffer):
                    return True
                if not more():
                    return False

        while True:
            if not skip_space():
                raise _bad(max(index, 1), "the JSON ends before its array is closed")
            char = buffer[position]
            if not started:
                if char != "[":
                    raise _bad(1, "the JSON must be an array of entry objects")
                started, position = True, position + 1
                continue
            if char == "]":
                position += 1
                if skip_space():
                    raise _bad(index, "text after the JSON array")
                return
            if index > 0:
                if char != ",":
                    raise _bad(index + 1, "expected ',' or ']' after an item")
                position += 1
                if not skip_space():
                    raise _bad(index + 1, "the JSON ends before its array is closed")
            while True:
                try:
                    item, end = decoder.raw_decode(buffer, position)
                except json.JSONDecodeError as exc:
                    # An item cut by the end of the buffer: read on, unless the file ended.
                    if more():
                        continue
                    raise _bad(index + 1, f"not valid JSON: {exc.msg}") from exc
                except RecursionError as exc:
                    raise _bad(index + 1, "the item is nested too deeply") from exc
                break
            position = end
            index += 1
            yield item
