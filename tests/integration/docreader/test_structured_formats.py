"""Spreadsheets with a title above the header, through a real docreader over gRPC."""

from __future__ import annotations

from pathlib import Path

from tests.unit.docreader.test_sheet_titles import TITLE, titled_xlsx
from workers.docreader_client import DocReaderClient, ReadConfig


def test_a_merged_title_comes_back_once_above_the_detected_header(
    client: DocReaderClient, tmp_path: Path
) -> None:
    content = titled_xlsx(tmp_path / "q1.xlsx").read_bytes()
    outcome = client.read(content, file_name="q1.xlsx", file_type="xlsx")
    assert outcome.markdown.count(TITLE) == 1
    assert outcome.markdown.startswith(
        f"## Sheet: Q1\n\n{TITLE}\n\nMerged cells: A1:F4, A6:A8, A9:A10\n\n"
        "| Region | Month | Units | Revenue | Rep | Notes |\n"
    )
    # Told there is no header row, no row is taken for a title either.
    plain = client.read(
        content,
        file_name="q1.xlsx",
        file_type="xlsx",
        config=ReadConfig(options={"first_row_header": "false"}),
    )
    assert "| Column 1 | Column 2 |" in plain.markdown
    assert f"| {TITLE} |" in plain.markdown
