"""xlsx → ``## Sheet: <name>`` and a Markdown table per sheet, streamed row by row.

The file is checked first (an encrypted package is an OLE file, not a zip; bomb-shaped zips
are refused), then read with openpyxl in read-only, values-only mode: formulas give their
cached results (a formula never calculated by a spreadsheet program shows empty). The
sheet's declared dimension is ignored (``reset_dimensions``): it is often inflated by
formatting to the whole grid, and every row is then read up to its own last cell only.
Merged areas come from the sheet's XML part (see ``xlsx_parts``). Sheets are written in
workbook order; chart sheets hold no cells and are skipped.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openpyxl import load_workbook

from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.library_errors import library_errors
from server.docreader.parsers.office.container import open_ooxml_container
from server.docreader.parsers.sheets.cells import cell_text
from server.docreader.parsers.sheets.workbook_writer import WorkbookWriter
from server.docreader.parsers.sheets.xlsx_parts import merged_ranges, sheet_parts


class XlsxParser:
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        writer = WorkbookWriter(sink, options)
        archive = open_ooxml_container(source, options.limits, what="xlsx")
        with archive, warnings.catch_warnings():
            # openpyxl warns about every extension it does not read; none changes the values.
            warnings.simplefilter("ignore")
            # Read before openpyxl parses anything, so a hostile sheet part is refused by us.
            parts = sheet_parts(archive)
            merges = {name: merged_ranges(archive, part) for name, part in parts.items()}
            workbook = _load(source)
            try:
                for sheet in workbook.worksheets:
                    writer.add_sheet(
                        sheet.title,
                        _rows(sheet),
                        merges.get(sheet.title, []),
                        hidden=sheet.sheet_state != "visible",
                    )
            finally:
                workbook.close()
        writer.finish()


def _load(source: Path) -> Any:
    with library_errors("xlsx workbook"):
        return load_workbook(source, read_only=True, data_only=True)


def _rows(sheet: Any) -> Iterator[list[str]]:
    with library_errors(f"xlsx sheet {sheet.title!r}"):
        sheet.reset_dimensions()
        for values in sheet.iter_rows(values_only=True):
            yield [value if type(value) is str else cell_text(value) for value in values]
