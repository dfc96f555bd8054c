"""A sheet with a title merged over A1:F4 above its header, through the real xlsx parser,
chunking stage and datatable:summary (issue 11, item 6): the title is written once in the
text and once in the summary, not into every cell, column name and column profile."""

from __future__ import annotations

from pathlib import Path

from openpyxl import Workbook

from server.docreader.parser_contract import ParseOptions, parse_to_document
from server.docreader.parsers.sheets.xlsx import XlsxParser
from tests.integration.pipeline.test_data_table import (
    ctx,  # noqa: F401  (the fixture)
    payload_of,
    processed_knowledge,
    table_chunks,
)
from workers.context import WorkerContext
from workers.pipeline.data_table import summarize_data_tables

TITLE = "Quarterly sales report 2024 for all regions"
HEADER = ["Region", "Month", "Units", "Revenue", "Rep", "Notes"]
ROWS = 40


def report_xlsx(path: Path) -> Path:
    book = Workbook()
    sheet = book.active
    sheet.title = "Q1"
    sheet["A1"] = TITLE
    for col, name in enumerate(HEADER, start=1):
        sheet.cell(row=5, column=col, value=name)
    for i in range(ROWS):
        values = [
            ("North", "South")[i % 2],
            f"2024-{1 + i % 12:02d}",
            10 + i,
            100 + 5 * i,
            ("Ann", "Bo", "Cy")[i % 3],
            f"Call {i}: the customer asked again about the delivery date of the order",
        ]
        for col, value in enumerate(values, start=1):
            sheet.cell(row=6 + i, column=col, value=value)
    sheet.merge_cells("A1:F4")
    book.save(path)
    return path


def test_a_merged_title_is_written_once_and_recorded_in_the_summary(
    ctx: WorkerContext,  # noqa: F811
    tmp_path: Path,
) -> None:
    path = report_xlsx(tmp_path / "q1.xlsx")
    markdown = parse_to_document(XlsxParser(), path, ParseOptions()).markdown
    row = processed_knowledge(ctx, markdown, file_name="q1.xlsx")
    assert summarize_data_tables(ctx, payload_of(row)) == 1 + len(HEADER)

    chunks, _ = ctx.chunks.list_by_knowledge(row.id, limit=1000, tenant_id=None)
    texts = [c for c in chunks if c.chunk_type == "text"]
    assert len(texts) > 5, "the table must have been cut into several chunks"
    assert sum(c.content.count(TITLE) for c in texts) == 1
    summary, *columns = table_chunks(ctx, row.id)
    assert summary.content.splitlines()[:3] == [
        "Sheet 'Q1' of 'q1.xlsx': 40 rows and 6 columns.",
        f"Title: {TITLE}.",
        "Merged cells: A1:F4.",
    ]
    assert summary.content.count(TITLE) == 1
    assert [c.meta["column"] for c in columns] == HEADER
    assert not any(TITLE in c.content for c in columns)

    # The long notes are described, not repeated: one shortened example in their column.
    notes = next(c for c in columns if c.meta["column"] == "Notes")
    assert "long text of 69 to 70 characters" in notes.content
    assert notes.content.count("Call ") == 1
    assert "Call " not in summary.content
