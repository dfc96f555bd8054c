"""A workbook's sheets → Markdown: ``## Sheet: <name>``, its title rows, the ``Merged cells:``
line, then the sheet's table, per sheet.

Shared by the xlsx and xls parsers, which only turn their library's rows into lists of cell
text. Here title rows above the header become paragraphs (``title_rows``), the merges that
hold a value are listed once (``merges``; the covered cells stay blank), the per-sheet cell
budget (``max_sheet_cells``) is enforced — a sheet past it is cut and named in the
``truncated_sheets`` metadata — and the workbook metadata is set. Hidden sheets are kept
(their data is often what lookups and formulas draw on) and named in ``hidden_sheets``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.sheets.header_option import first_row_header
from server.docreader.parsers.sheets.merges import MergedRange, MergeLog
from server.docreader.parsers.sheets.table import SheetTable
from server.docreader.parsers.sheets.title_rows import TitleRows, title_paragraph


class WorkbookWriter:
    def __init__(self, sink: DocumentSink, options: ParseOptions) -> None:
        self._sink = sink
        self._header = first_row_header(options)
        self._cell_limit = options.limits.max_sheet_cells
        self._spool_dir = options.work_dir
        self._names: list[str] = []
        self._hidden: list[str] = []
        self._truncated: list[str] = []
        self._rows = 0

    def add_sheet(
        self,
        name: str,
        rows: Iterable[list[str]],
        merges: Sequence[MergedRange] = (),
        *,
        hidden: bool = False,
    ) -> None:
        """Write one sheet; ``rows`` holds every row from the first, blank ones included, so
        that a row's position is its index in the sheet."""
        title = " ".join(name.split()) or f"Sheet {len(self._names) + 1}"
        if self._names:
            self._sink.write("\n\n")
        self._sink.write(f"## Sheet: {title}")
        self._names.append(title)
        if hidden:
            self._hidden.append(title)
        table = SheetTable(spool_dir=self._spool_dir)
        titles = TitleRows(enabled=self._header)
        merges_seen = MergeLog(merges)
        try:
            if not self._collect(table, rows, titles, merges_seen):
                self._truncated.append(title)
            merged = merges_seen.line()
            above = [title_paragraph(t) for t in titles.titles] + ([merged] if merged else [])
            for paragraph in above:
                self._sink.write("\n\n" + paragraph)
            if table.row_count:
                self._sink.write("\n\n")
                table.write(self._sink, header=self._header)
                self._rows += table.row_count - (1 if self._header else 0)
        finally:
            table.close()

    def finish(self) -> None:
        self._sink.set_metadata("sheet_count", str(len(self._names)))
        self._sink.set_metadata("sheet_names", ", ".join(self._names))
        self._sink.set_metadata("total_rows", str(self._rows))
        if self._hidden:
            self._sink.set_metadata("hidden_sheets", ", ".join(self._hidden))
        if self._truncated:
            self._sink.set_metadata("truncated_sheets", ", ".join(self._truncated))

    def _collect(
        self, table: SheetTable, rows: Iterable[list[str]], titles: TitleRows, merges: MergeLog
    ) -> bool:
        """Add the rows to the table; False when the cell budget cut the sheet short."""
        budget = self._cell_limit
        complete = True
        for index, cells in enumerate(rows):
            # Cells scanned, blank ones too: a sheet of empty rows must not run forever.
            budget -= max(len(cells), 1)
            if budget < 0:
                complete = False
                break
            merges.see(index, cells)
            for row in titles.offer(cells):
                table.add(row)
        for row in titles.finish():
            table.add(row)
        return complete
