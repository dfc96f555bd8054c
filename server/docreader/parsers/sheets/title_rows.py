"""Title rows: the lines a sheet (or CSV) often starts with above its real header row.

A report's sheet tends to open with its name in one cell ("Quarterly sales 2024", merged
across the table or not) and maybe a subtitle, then the header. Taken as the header, the
title would name the columns ("Quarterly sales 2024", "Column 2", ...) and push the real
header into the data. A title row is a leading row with exactly one non-blank cell, at most
``MAX_TITLE_ROWS`` of them, followed by a row with two or more: those rows are the titles,
written as paragraphs above the table, and that row is the header. A sheet whose rows all
hold one value (a one-column list) has no titles. Blank rows are skipped here as the table
skips them.
"""

from __future__ import annotations

import re

MAX_TITLE_ROWS = 3
_WHITESPACE = re.compile(r"\s+")
# A paragraph must not open another block: heading, quote, list, table, fence, rule.
_BLOCK_START = re.compile(r"^[#>+*=`~-]")
_ORDERED_ITEM = re.compile(r"^\d+(?=[.)])")


class TitleRows:
    """Fed the rows in order; ``offer`` returns the rows the table gets, ``titles`` the
    titles found once the header row has arrived."""

    def __init__(self, *, enabled: bool) -> None:
        self._deciding = enabled
        self._held: list[list[str]] = []
        self.titles: list[str] = []

    def offer(self, cells: list[str]) -> list[list[str]]:
        if not self._deciding:
            return [cells]
        filled = [cell for cell in cells if cell.strip()]
        if not filled:
            return [cells]
        if len(filled) == 1 and len(self._held) < MAX_TITLE_ROWS:
            self._held.append(cells)
            return []
        self._deciding = False
        if len(filled) >= 2:
            self.titles = [next(c for c in row if c.strip()) for row in self._held]
            self._held = []
            return [cells]
        return [*self.finish(), cells]

    def finish(self) -> list[list[str]]:
        """The rows still held when the rows end (no header row came): they are data."""
        held, self._held, self._deciding = self._held, [], False
        return held


def title_paragraph(title: str) -> str:
    """A title as one Markdown paragraph line, escaped so it opens no other block."""
    text = _WHITESPACE.sub(" ", title).strip().replace("\\", "\\\\").replace("|", "\\|")
    if _BLOCK_START.match(text):
        return "\\" + text
    number = _ORDERED_ITEM.match(text)
    return text if number is None else f"{number.group()}\\{text[number.end() :]}"
