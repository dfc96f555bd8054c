"""Spreadsheet parsers (xlsx via openpyxl, xls via xlrd) and the table streaming they share."""

from __future__ import annotations

import datetime
import io
import struct
import time
import zipfile
from pathlib import Path

import pytest
import xlwt
from openpyxl import Workbook
from openpyxl.styles import Font
from xlwt import CompoundDoc

from server.docreader.errors import ParseError
from server.docreader.parser_contract import MemorySink, ParseOptions, parse_to_document
from server.docreader.parsers.sheets.cells import cell_text
from server.docreader.parsers.sheets.table import SheetTable
from server.docreader.parsers.sheets.xls import XlsParser
from server.docreader.parsers.sheets.xlsx import XlsxParser
from server.docreader.safety.limits import ParseLimits

SALES_MERGES = "Merged cells: A1:B1, A2:A3"
SALES = (
    "| Region |  | Date | Amount | Ratio |\n"
    "| --- | --- | --- | --- | --- |\n"
    "| North | Oslo | 2024-03-05 | 10 | 0.3 |\n"
    "|  | Bergen | 2024-03-06T14:30:00 | 2.5 | 0.333333333333333 |\n"
    "| South | Rome \\| Milan |  | -7 | TRUE |"
)
NOTES = "Merged cells: B3:B4\n\n| Key | Value |\n| --- | --- |\n| a | 1.5 |\n| b | spans |"
LOOKUP = "| code |\n| --- |\n| x1 |"


def sales_xlsx(path: Path) -> Path:
    """Three sheets: merges across (A1:B1) and down (A2:A3), a date, a datetime, numbers, a
    blank trailing area; a merge reaching past the last stored row; a hidden sheet starting
    in column B."""
    book = Workbook()
    sales = book.active
    sales.title = "Sales"
    sales.append(["Region", None, "Date", "Amount", "Ratio"])
    sales.append(["North", "Oslo", datetime.date(2024, 3, 5), 10, 0.1 + 0.2])
    sales.append([None, "Bergen", datetime.datetime(2024, 3, 6, 14, 30), 2.5, 1 / 3])
    sales.append(["South", "Rome | Milan", None, -7, True])
    sales.merge_cells("A1:B1")
    sales.merge_cells("A2:A3")
    sales["A12"] = "   "
    sales["H30"].font = Font(bold=True)  # styled but empty: stored, yet no content
    notes = book.create_sheet("Notes")
    for row in (["Key", "Value"], ["a", 1.5], ["b", "spans"]):
        notes.append(row)
    notes.merge_cells("B3:B4")  # row 4 is not stored in the file at all
    lookup = book.create_sheet("Lookup")
    lookup.sheet_state = "hidden"
    lookup["B2"], lookup["B3"] = "code", "x1"
    book.save(path)
    return path


def read_xlsx(path: Path, options: ParseOptions | None = None) -> tuple[str, dict[str, str]]:
    document = parse_to_document(XlsxParser(), path, options or ParseOptions())
    return document.markdown, document.metadata


def test_xlsx_sheets_become_headed_tables_with_merges_listed(tmp_path: Path) -> None:
    markdown, metadata = read_xlsx(sales_xlsx(tmp_path / "sales.xlsx"))
    assert markdown == (
        f"## Sheet: Sales\n\n{SALES_MERGES}\n\n{SALES}\n\n## Sheet: Notes\n\n{NOTES}\n\n"
        f"## Sheet: Lookup\n\n{LOOKUP}"
    )
    assert metadata == {
        "sheet_count": "3",
        "sheet_names": "Sales, Notes, Lookup",
        "total_rows": "6",
        "hidden_sheets": "Lookup",
    }


def test_xlsx_without_header_row_gets_numbered_columns(tmp_path: Path) -> None:
    path = sales_xlsx(tmp_path / "sales.xlsx")
    options = ParseOptions(engine_options={"first_row_header": "false"})
    markdown, metadata = read_xlsx(path, options)
    sales = markdown.split("\n\n")[2].splitlines()
    assert sales[:3] == [
        "| Column 1 | Column 2 | Column 3 | Column 4 | Column 5 |",
        "| --- | --- | --- | --- | --- |",
        "| Region |  | Date | Amount | Ratio |",
    ]
    assert sales[3:] == SALES.splitlines()[2:]
    assert markdown.endswith("## Sheet: Lookup\n\n| Column 1 |\n| --- |\n| code |\n| x1 |")
    assert metadata["total_rows"] == "9"
    assert read_xlsx(path, ParseOptions(first_row_header=False))[0] == markdown


def test_xlsx_inflated_dimension_is_ignored(tmp_path: Path) -> None:
    # Formatting often makes a sheet claim the whole grid; reading to it would never end.
    path = rewrite_member(
        sales_xlsx(tmp_path / "sales.xlsx"),
        "xl/worksheets/sheet1.xml",
        lambda xml: xml.replace(b'<dimension ref="A1:H30"/>', b'<dimension ref="A1:XFD1048576"/>'),
    )
    started = time.perf_counter()
    markdown, _ = read_xlsx(path)
    assert time.perf_counter() - started < 5
    assert markdown.startswith(f"## Sheet: Sales\n\n{SALES_MERGES}\n\n{SALES}\n\n")


def test_xlsx_sheet_over_the_cell_limit_is_cut_and_reported(tmp_path: Path) -> None:
    path = sales_xlsx(tmp_path / "sales.xlsx")
    # Rows 1 and 2: 5 cells each; row 3 is past 13.
    markdown, metadata = read_xlsx(path, ParseOptions(limits=ParseLimits(max_sheet_cells=13)))
    assert markdown.startswith(f"## Sheet: Sales\n\n{SALES_MERGES}\n\n{SALES.splitlines()[0]}\n")
    assert "\n".join(SALES.splitlines()[:3]) + "\n\n## Sheet: Notes" in markdown
    assert metadata["truncated_sheets"] == "Sales"
    assert metadata["total_rows"] == "4"


def test_xlsx_invalid_engine_option_is_a_parse_error(tmp_path: Path) -> None:
    options = ParseOptions(engine_options={"first_row_header": "maybe"})
    with pytest.raises(ParseError, match="first_row_header option must be true or false"):
        read_xlsx(sales_xlsx(tmp_path / "sales.xlsx"), options)


@pytest.mark.parametrize("damage", ["truncated", "random"])
def test_broken_xlsx_is_a_parse_error(tmp_path: Path, damage: str) -> None:
    data = sales_xlsx(tmp_path / "sales.xlsx").read_bytes()
    path = tmp_path / "broken.xlsx"
    path.write_bytes(data[: len(data) // 2] if damage == "truncated" else bytes(range(256)) * 40)
    with pytest.raises(ParseError, match="not a valid zip container"):
        read_xlsx(path)


def test_xlsx_with_malformed_sheet_xml_is_a_parse_error(tmp_path: Path) -> None:
    path = rewrite_member(
        sales_xlsx(tmp_path / "sales.xlsx"),
        "xl/worksheets/sheet2.xml",
        lambda xml: xml[: xml.index(b"</sheetData>")],
    )
    with pytest.raises(ParseError, match="the xlsx sheet 'Notes' is not"):
        read_xlsx(path)


def test_xlsx_with_corrupt_compressed_data_is_a_parse_error(tmp_path: Path) -> None:
    path = sales_xlsx(tmp_path / "sales.xlsx")
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("xl/worksheets/sheet1.xml")
    data = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for offset in range(start + 20, start + info.compress_size - 20):
        data[offset] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(ParseError, match=r"the xlsx sheet part 'xl/worksheets/sheet1\.xml' is not"):
        read_xlsx(path)


def test_xlsx_sheet_declaring_entities_is_refused(tmp_path: Path) -> None:
    bomb = b'<!DOCTYPE w [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
    path = rewrite_member(
        sales_xlsx(tmp_path / "sales.xlsx"), "xl/worksheets/sheet1.xml", lambda xml: bomb + xml
    )
    with pytest.raises(ParseError, match="declares XML entities"):
        read_xlsx(path)


def test_zip_bomb_xlsx_is_refused(tmp_path: Path) -> None:
    path = sales_xlsx(tmp_path / "sales.xlsx")
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/media/zeros.bin", bytes(8 << 20))
    with pytest.raises(ParseError, match="zip bomb"):
        read_xlsx(path)


def test_password_protected_xlsx_is_reported_as_such(tmp_path: Path) -> None:
    # An encrypted OOXML file is an OLE compound file holding an "EncryptedPackage" stream.
    path = ole_file(tmp_path / "secret.xlsx", "EncryptedPackage", b"\x01" * 5000)
    with pytest.raises(ParseError, match="password-protected"):
        read_xlsx(path)


def budget_xls(path: Path) -> Path:
    """Two sheets written by xlwt: merges across (row 0) and down (column A), dates, numbers,
    a boolean, a blank trailing cell; the second sheet hidden."""
    book = xlwt.Workbook()
    budget = book.add_sheet("Budget")
    budget.write_merge(0, 0, 0, 1, "Team")
    budget.write(0, 2, "Start")
    budget.write(0, 3, "Cost")
    budget.write_merge(1, 2, 0, 0, "Ops")
    budget.write(1, 1, "Ann")
    budget.write(1, 2, datetime.date(2023, 12, 31), xlwt.easyxf(num_format_str="YYYY-MM-DD"))
    budget.write(1, 3, 3.0)
    budget.write(2, 1, "Bo|b")
    stamp = xlwt.easyxf(num_format_str="YYYY-MM-DD HH:MM")
    budget.write(2, 2, datetime.datetime(2024, 1, 2, 9, 15), stamp)
    budget.write(2, 3, 1.25)
    budget.write(3, 1, True)
    budget.write(3, 3, -2)
    budget.write(9, 6, "")
    second = book.add_sheet("Second")
    second.visibility = 1
    second.write(0, 0, "only")
    second.write(1, 0, datetime.time(7, 30), xlwt.easyxf(num_format_str="HH:MM"))
    book.save(str(path))
    return path


BUDGET = (
    "| Team |  | Start | Cost |\n"
    "| --- | --- | --- | --- |\n"
    "| Ops | Ann | 2023-12-31 | 3 |\n"
    "|  | Bo\\|b | 2024-01-02T09:15:00 | 1.25 |\n"
    "|  | TRUE |  | -2 |"
)


def test_xls_sheets_become_headed_tables_with_merges_listed(tmp_path: Path) -> None:
    document = parse_to_document(XlsParser(), budget_xls(tmp_path / "b.xls"), ParseOptions())
    assert document.markdown == (
        "## Sheet: Budget\n\nMerged cells: A1:B1, A2:A3\n\n"
        f"{BUDGET}\n\n## Sheet: Second\n\n| only |\n| --- |\n| 07:30:00 |"
    )
    assert document.metadata == {
        "sheet_count": "2",
        "sheet_names": "Budget, Second",
        "total_rows": "4",
        "hidden_sheets": "Second",
    }


def test_xls_without_header_row_gets_numbered_columns(tmp_path: Path) -> None:
    options = ParseOptions(first_row_header=False)
    document = parse_to_document(XlsParser(), budget_xls(tmp_path / "b.xls"), options)
    lines = document.markdown.split("\n\n")[2].splitlines()
    assert lines[0] == "| Column 1 | Column 2 | Column 3 | Column 4 |"
    assert lines[2:] == BUDGET.splitlines()[:1] + BUDGET.splitlines()[2:]
    assert document.metadata["total_rows"] == "6"


def test_encrypted_xls_is_reported_as_password_protected(tmp_path: Path) -> None:
    book = xlwt.Workbook()
    book.add_sheet("S").write(0, 0, "secret")
    stream = book.get_biff_data()
    # Encrypted workbooks carry a FILEPASS record (0x002F) right after the first BOF record.
    bof_end = 4 + struct.unpack_from("<H", stream, 2)[0]
    filepass = struct.pack("<HHHHH", 0x002F, 6, 0, 0x1234, 0x5678)  # XOR obfuscation
    path = tmp_path / "secret.xls"
    CompoundDoc.XlsDoc().save(str(path), stream[:bof_end] + filepass + stream[bof_end:])
    with pytest.raises(ParseError, match="password-protected"):
        parse_to_document(XlsParser(), path, ParseOptions())


@pytest.mark.parametrize("damage", ["truncated", "random", "xlsx"])
def test_broken_xls_is_a_parse_error(tmp_path: Path, damage: str) -> None:
    data = budget_xls(tmp_path / "b.xls").read_bytes()
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "random":
        data = bytes(range(256)) * 40
    else:
        data = sales_xlsx(tmp_path / "sales.xlsx").read_bytes()
    path = tmp_path / "broken.xls"
    path.write_bytes(data)
    with pytest.raises(ParseError, match="the xls workbook is not readable"):
        parse_to_document(XlsParser(), path, ParseOptions())


@pytest.mark.parametrize("memory_cells", [1_000, 3])
def test_sheet_table_trims_edges_and_spills_to_disk(tmp_path: Path, memory_cells: int) -> None:
    table = SheetTable(spool_dir=tmp_path, memory_cells=memory_cells)
    rows = [["", "", ""], ["", "a", "b", "", " "], ["", "x|y", "two\nlines"], ["", "", "c"]]
    for row in rows + [["", f"r{n}", "é"] for n in range(1_200)]:
        table.add(row)
    sink = MemorySink()
    table.write(sink, header=True)
    table.close()
    lines = "".join(sink.parts).splitlines()
    assert lines[:5] == [
        "| a | b |",
        "| --- | --- |",
        "| x\\|y | two<br>lines |",
        "|  | c |",
        "| r0 | é |",
    ]
    assert lines[-1] == "| r1199 | é |"
    assert len(lines) == 1_204
    # Written in batches, never as one string.
    assert len(sink.parts) == 2
    assert table.row_count == 1_203


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        (True, "TRUE"),
        (False, "FALSE"),
        (42, "42"),
        (3.0, "3"),
        (-0.5, "-0.5"),
        (0.1 + 0.2, "0.3"),
        (1e20, "1e+20"),
        (datetime.datetime(2024, 2, 29), "2024-02-29"),
        (datetime.datetime(2024, 2, 29, 8, 5, 3), "2024-02-29T08:05:03"),
        (datetime.date(1999, 12, 31), "1999-12-31"),
        (datetime.time(23, 59), "23:59:00"),
        (datetime.timedelta(hours=26), "1 day, 2:00:00"),
        ("#DIV/0!", "#DIV/0!"),
    ],
)
def test_cell_values_read_like_a_spreadsheet_shows_them(value: object, text: str) -> None:
    assert cell_text(value) == text


def rewrite_member(path: Path, member: str, change: object) -> Path:
    """A copy of the zip at ``path`` with ``member``'s bytes passed through ``change``."""
    assert callable(change)
    target = path.with_name(f"changed-{path.name}")
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            data = source.read(info)
            out.writestr(info.filename, change(data) if info.filename == member else data)
    return target


def ole_file(path: Path, stream_name: str, data: bytes) -> Path:
    """A real OLE compound file with one stream: xlwt's writer names its stream "Workbook",
    so that directory entry (name field and name length) is renamed."""
    buffer = io.BytesIO()
    CompoundDoc.XlsDoc().save(buffer, data)
    path.write_bytes(
        buffer.getvalue().replace(dir_entry_name("Workbook"), dir_entry_name(stream_name), 1)
    )
    return path


def dir_entry_name(name: str) -> bytes:
    encoded = (name + "\0").encode("utf-16-le")
    return encoded.ljust(64, b"\0") + struct.pack("<H", len(encoded))
