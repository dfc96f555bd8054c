"""One sheet's rows → one GFM table, written to the sink in batches.

The header line must carry the table's width, but the width (the widest row once empty
trailing cells are cut) and the left edge (the fewest leading empty cells over all rows) are
only known after the last row. So rows are held until the sheet ends: in memory while the
sheet is small, spilled to a temporary file (one JSON array per line) past a cell budget, and
then written out a batch of lines at a time, so memory stays bounded however long the sheet.
Blank rows are dropped, as ``markdown_table`` does.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from server.docreader.markdown.tables import write_table
from server.docreader.parser_contract import DocumentSink
from server.docreader.parsers.sheets.header_option import generic_header

_MEMORY_CELLS = 250_000


class SheetTable:
    def __init__(self, *, spool_dir: Path | None, memory_cells: int = _MEMORY_CELLS) -> None:
        self._spool_dir = spool_dir
        self._memory_cells = memory_cells
        self._held: list[list[str]] = []
        self._held_cells = 0
        self._spool: TextIO | None = None
        self._width = 0
        self._lead = sys.maxsize
        self.row_count = 0

    def add(self, cells: list[str]) -> None:
        """Hold a row (the list is kept, not copied); a row of blank cells is dropped."""
        end = len(cells)
        while end and not cells[end - 1].strip():
            end -= 1
        if not end:
            return
        del cells[end:]
        lead = 0
        while not cells[lead].strip():
            lead += 1
        self._lead = min(self._lead, lead)
        self._width = max(self._width, end)
        self.row_count += 1
        self._held.append(cells)
        self._held_cells += end
        if self._held_cells > self._memory_cells:
            self._spill()

    def write(self, sink: DocumentSink, *, header: bool) -> None:
        """Write the table (nothing when no row was added); the sink gets no trailing newline."""
        if not self.row_count:
            return
        lead, width = self._lead, self._width - self._lead
        rows = self._rows()
        head = next(rows)[lead:] if header else generic_header(width)
        write_table(sink, head, (row[lead:] for row in rows), width)

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        self._held = []

    def _spill(self) -> None:
        if self._spool is None:
            # Kept open across calls; close() closes (and so deletes) it.
            self._spool = tempfile.TemporaryFile(  # noqa: SIM115
                "w+", encoding="utf-8", newline="\n", dir=self._spool_dir
            )
        # Cell text may hold newlines; JSON keeps each row on one line.
        self._spool.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in self._held)
        self._held, self._held_cells = [], 0

    def _rows(self) -> Iterator[list[str]]:
        if self._spool is not None:
            self._spool.seek(0)
            for line in self._spool:
                row: list[str] = json.loads(line)
                yield row
        yield from self._held
