"""Merged cells: every cell a merge covers shows the merge's top-left value.

A spreadsheet stores a merged area's value only in its top-left cell; in a Markdown table
that would leave the rest of a merged header or group label blank, so the value is copied
into every covered cell as the rows stream past. Rows and columns are 0-based here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class MergedRange:
    first_row: int
    first_col: int
    last_row: int
    last_col: int


class MergeFiller:
    def __init__(self, ranges: Iterable[MergedRange]) -> None:
        self._starting: dict[int, list[MergedRange]] = {}
        for merged in ranges:
            covers_more = merged.last_row > merged.first_row or merged.last_col > merged.first_col
            if covers_more and merged.first_row >= 0 and merged.first_col >= 0:
                self._starting.setdefault(merged.first_row, []).append(merged)
        # Merges whose top-left value has been seen, with that value.
        self._active: list[tuple[MergedRange, str]] = []

    def fill(self, row_index: int, cells: list[str]) -> int:
        """Fill the covered cells of row ``row_index`` in place; the number of cells set.

        Rows must come in increasing order, each once.
        """
        starting = self._starting.pop(row_index, None)
        if starting is None and not self._active:
            return 0
        if self._active:
            self._active = [(m, value) for m, value in self._active if m.last_row >= row_index]
        for merged in starting or ():
            value = cells[merged.first_col] if merged.first_col < len(cells) else ""
            if value.strip():
                self._active.append((merged, value))
        filled = 0
        for merged, value in self._active:
            if len(cells) <= merged.last_col:
                cells.extend([""] * (merged.last_col + 1 - len(cells)))
            for col in range(merged.first_col, merged.last_col + 1):
                cells[col] = value
            filled += merged.last_col + 1 - merged.first_col
        return filled

    def last_filled_row(self) -> int:
        """The last row a merge seen so far still covers (-1 when none), so that rows the
        file does not store, under a merge reaching past the sheet's last row, get filled."""
        return max((merged.last_row for merged, _ in self._active), default=-1)
