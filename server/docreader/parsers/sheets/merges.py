"""Merged cells: the value is written once, in the merge's top-left cell, and the span named.

A spreadsheet stores a merged area's value only in its top-left cell. Copying it into every
covered cell made one title merged over A1:F4 into 24 copies, which then filled the header,
every column's profile and every chunk of the table, crowding out whatever a question was
really about. So the covered cells stay blank and the merges that hold a value are listed
once (``MergeLog``) in A1 notation, in the line ``Merged cells: A1:F4, A6:A9`` above the
sheet's table. Rows and columns are 0-based here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from openpyxl.utils.cell import get_column_letter

# The line names this many merges, then how many more there are.
MAX_LISTED_MERGES = 20
MERGED_CELLS_PREFIX = "Merged cells: "


@dataclass(frozen=True)
class MergedRange:
    first_row: int
    first_col: int
    last_row: int
    last_col: int

    @property
    def a1(self) -> str:
        """``A1:F4`` notation, as the spreadsheet program shows the range."""
        first = f"{get_column_letter(self.first_col + 1)}{self.first_row + 1}"
        return f"{first}:{get_column_letter(self.last_col + 1)}{self.last_row + 1}"


class MergeLog:
    """The merges of one sheet whose top-left cell holds a value, in sheet order, seen as
    the rows stream past (a merge of blank cells is formatting, not content)."""

    def __init__(self, ranges: Iterable[MergedRange]) -> None:
        self._starting: dict[int, list[MergedRange]] = {}
        for merged in ranges:
            covers_more = merged.last_row > merged.first_row or merged.last_col > merged.first_col
            if covers_more and merged.first_row >= 0 and merged.first_col >= 0:
                self._starting.setdefault(merged.first_row, []).append(merged)
        self._with_value: list[MergedRange] = []

    def see(self, row_index: int, cells: list[str]) -> None:
        """Note the merges starting on row ``row_index``; rows come in increasing order."""
        starting = self._starting.pop(row_index, None)
        for merged in sorted(starting or (), key=lambda m: m.first_col):
            if merged.first_col < len(cells) and cells[merged.first_col].strip():
                self._with_value.append(merged)

    def line(self) -> str:
        """``Merged cells: A1:F4, A6:A9`` ("" when none holds a value)."""
        if not self._with_value:
            return ""
        listed = ", ".join(m.a1 for m in self._with_value[:MAX_LISTED_MERGES])
        more = len(self._with_value) - MAX_LISTED_MERGES
        return MERGED_CELLS_PREFIX + listed + (f" and {more} more" if more > 0 else "")
