"""Title rows above a sheet's header and merged values written once (issue 11, item 6)."""

from __future__ import annotations

from pathlib import Path

import xlwt
from openpyxl import Workbook

from server.docreader.parser_contract import ParseOptions, parse_to_document
from server.docreader.parsers.csv_table import CsvParser
from server.docreader.parsers.sheets.merges import MAX_LISTED_MERGES, MergedRange, MergeLog
from server.docreader.parsers.sheets.title_rows import TitleRows, title_paragraph
from server.docreader.parsers.sheets.xls import XlsParser
from server.docreader.parsers.sheets.xlsx import XlsxParser

TITLE = "Quarterly sales report 2024, all regions"
HEADER = ["Region", "Month", "Units", "Revenue", "Rep", "Notes"]


def titled_xlsx(path: Path) -> Path:
    """A title merged over A1:F4, the header on row 5, a region merged down A6:A8."""
    book = Workbook()
    sheet = book.active
    sheet.title = "Q1"
    sheet["A1"] = TITLE
    for col, name in enumerate(HEADER, start=1):
        sheet.cell(row=5, column=col, value=name)
    for row in range(6, 11):
        values = [
            "North" if row == 6 else ("South" if row == 9 else None),
            f"2024-0{row - 5}",
            row * 10,
            row * 100.5,
            "Ann",
            f"note {row}",
        ]
        for col, value in enumerate(values, start=1):
            sheet.cell(row=row, column=col, value=value)
    sheet.merge_cells("A1:F4")
    sheet.merge_cells("A6:A8")
    sheet.merge_cells("A9:A10")
    book.save(path)
    return path


def test_a_merged_title_is_written_once_above_the_real_header(tmp_path: Path) -> None:
    document = parse_to_document(XlsxParser(), titled_xlsx(tmp_path / "q1.xlsx"), ParseOptions())
    markdown = document.markdown
    assert markdown.count(TITLE) == 1
    head, title, merges, table = markdown.split("\n\n")
    assert (head, title) == ("## Sheet: Q1", TITLE)
    assert merges == "Merged cells: A1:F4, A6:A8, A9:A10"
    lines = table.splitlines()
    assert lines[0] == "| Region | Month | Units | Revenue | Rep | Notes |"
    assert lines[2] == "| North | 2024-01 | 60 | 603 | Ann | note 6 |"
    assert lines[3].startswith("|  | 2024-02 |")  # covered by A6:A8: not copied
    assert sum(line.count("North") for line in lines) == 1
    assert document.metadata["total_rows"] == "5"


def test_an_xls_title_row_above_the_header(tmp_path: Path) -> None:
    book = xlwt.Workbook()
    sheet = book.add_sheet("Staff")
    sheet.write_merge(0, 1, 0, 2, "Staff list")
    sheet.write(2, 0, "As of 2024-01-01")
    for col, name in enumerate(["Name", "Team", "Start"]):
        sheet.write(3, col, name)
    for col, value in enumerate(["Ann", "Ops", "2020"]):
        sheet.write(4, col, value)
    book.save(str(tmp_path / "s.xls"))
    document = parse_to_document(XlsParser(), tmp_path / "s.xls", ParseOptions())
    assert document.markdown == (
        "## Sheet: Staff\n\nStaff list\n\nAs of 2024-01-01\n\nMerged cells: A1:C2\n\n"
        "| Name | Team | Start |\n| --- | --- | --- |\n| Ann | Ops | 2020 |"
    )


def test_a_csv_title_line_above_the_header(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("# Export of orders\n\nid,item\n1,pen\n2,ink\n")
    document = parse_to_document(CsvParser(), path, ParseOptions())
    assert document.markdown == (
        "\\# Export of orders\n\n| id | item |\n| --- | --- |\n| 1 | pen |\n| 2 | ink |"
    )
    assert document.metadata["rows"] == "2"


def test_a_one_column_list_has_no_title(tmp_path: Path) -> None:
    path = tmp_path / "list.csv"
    path.write_text("name\nAnn\nBo\nCy\nDi\n")
    document = parse_to_document(CsvParser(), path, ParseOptions())
    assert document.markdown == "| name |\n| --- |\n| Ann |\n| Bo |\n| Cy |\n| Di |"


def test_without_a_header_row_no_row_is_taken_for_a_title() -> None:
    titles = TitleRows(enabled=False)
    assert titles.offer(["Title", ""]) == [["Title", ""]]
    assert titles.titles == []


def test_title_rows_stop_at_three_and_then_are_data() -> None:
    titles = TitleRows(enabled=True)
    rows = [["a"], ["b"], ["c"], ["d"], ["e", "f"]]
    out = [row for cells in rows for row in titles.offer(cells)] + titles.finish()
    assert out == rows
    assert titles.titles == []


def test_title_paragraphs_open_no_other_block() -> None:
    assert title_paragraph("# Items") == "\\# Items"
    assert title_paragraph("- draft") == "\\- draft"
    assert title_paragraph("2024. Report") == "2024\\. Report"
    assert title_paragraph("a | b\nc") == "a \\| b c"
    assert title_paragraph("Plain title") == "Plain title"


def test_the_merged_cells_line_lists_valued_merges_and_counts_the_rest() -> None:
    merges = [MergedRange(row, 0, row, 1) for row in range(MAX_LISTED_MERGES + 3)]
    merges.append(MergedRange(0, 4, 2, 5))  # blank top-left cell: formatting only
    log = MergeLog(merges)
    for row in range(MAX_LISTED_MERGES + 3):
        log.see(row, ["x", "", "", "", ""])
    line = log.line()
    assert line.startswith("Merged cells: A1:B1, A2:B2, ")
    assert line.endswith(f"A{MAX_LISTED_MERGES}:B{MAX_LISTED_MERGES} and 3 more")
    assert "E1" not in line
