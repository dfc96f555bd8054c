"""Cuts Markdown into blocks: headings, paragraphs, list runs, tables, fenced code.

Only ATX headings (``# Title``) count as headings; setext underlines are plain paragraphs.
Block spans never include the blank lines between blocks, nor trailing whitespace.
``table_layout`` tells a table's header rows from its body rows, the only places a table
may be cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum


class BlockKind(Enum):
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    TABLE = "table"
    FENCE = "fence"


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    start: int
    end: int
    heading_level: int = 0
    heading_label: str = ""

    @property
    def atomic(self) -> bool:
        """Fenced code is never cut, whatever its size; a table only between rows."""
        return self.kind is BlockKind.FENCE


@dataclass(frozen=True)
class TableLayout:
    """A table block's rows as (start, end) spans without line breaks: ``header`` covers the
    header and delimiter rows (None when the table has none), ``rows`` the body rows."""

    header: tuple[int, int] | None
    rows: tuple[tuple[int, int], ...]


_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_FENCE_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}(?=[^`]*$)|~{3,})")
_HEADING = re.compile(r"^ {0,3}(?P<hashes>#{1,6})(?:[ \t]+(?P<title>.*?))?[ \t]*$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_DELIMITER = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$")


@dataclass(frozen=True)
class _Line:
    start: int
    end: int
    text: str  # without the line break

    @property
    def blank(self) -> bool:
        return not self.text.strip()


def scan_blocks(text: str, lo: int = 0, hi: int | None = None) -> list[Block]:
    """The blocks of ``text[lo:hi]``, in order, with offsets into ``text``."""
    hi = len(text) if hi is None else hi
    lines = [
        _Line(m.start(), m.end(), m.group().rstrip("\r\n"))
        for m in _LINE.finditer(text, lo, hi)
    ]
    return _Scanner(text, lines).scan()


def table_layout(text: str, block: Block) -> TableLayout:
    """The header and body rows of a TABLE block: the header is the first row when the
    second is a delimiter row (``|---|---|``)."""
    lines = [
        (m.start(), m.start() + len(m.group().rstrip("\r\n")))
        for m in _LINE.finditer(text, block.start, block.end)
    ]
    if len(lines) >= 2 and _TABLE_DELIMITER.match(text[lines[1][0] : lines[1][1]]):
        return TableLayout((lines[0][0], lines[1][1]), tuple(lines[2:]))
    return TableLayout(None, tuple(lines))


class _Scanner:
    def __init__(self, text: str, lines: list[_Line]) -> None:
        self._text = text
        self._lines = lines
        self._blocks: list[Block] = []

    def scan(self) -> list[Block]:
        i = 0
        while i < len(self._lines):
            line = self._lines[i]
            if line.blank:
                i += 1
            elif _FENCE_OPEN.match(line.text):
                i = self._fence(i)
            elif _HEADING.match(line.text):
                self._heading(line)
                i += 1
            elif self._table_starts(i):
                i = self._run(i, BlockKind.TABLE, self._table_continues)
            elif _THEMATIC_BREAK.match(line.text):
                self._add(BlockKind.PARAGRAPH, line.start, line.end)
                i += 1
            elif _LIST_ITEM.match(line.text):
                i = self._run(i, BlockKind.LIST, self._list_continues)
            else:
                i = self._run(i, BlockKind.PARAGRAPH, self._paragraph_continues)
        return self._blocks

    def _add(self, kind: BlockKind, start: int, end: int, level: int = 0, label: str = "") -> None:
        end = start + len(self._text[start:end].rstrip())
        if kind in (BlockKind.PARAGRAPH, BlockKind.HEADING):
            start = end - len(self._text[start:end].lstrip())
        if start < end:
            self._blocks.append(Block(kind, start, end, level, label))

    def _fence(self, i: int) -> int:
        match = _FENCE_OPEN.match(self._lines[i].text)
        assert match is not None
        fence = match.group("fence")
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(self._lines) and not closing.match(self._lines[j].text):
            j += 1
        last = min(j, len(self._lines) - 1)  # an unclosed fence runs to the end
        self._add(BlockKind.FENCE, self._lines[i].start, self._lines[last].end)
        return last + 1

    def _heading(self, line: _Line) -> None:
        match = _HEADING.match(line.text)
        assert match is not None
        level = len(match.group("hashes"))
        title = _CLOSING_HASHES.sub("", (match.group("title") or "").strip()).strip()
        label = "#" * level + (" " + title if title else "")
        self._add(BlockKind.HEADING, line.start, line.end, level, label)

    def _run(self, i: int, kind: BlockKind, continues: Callable[[int], bool]) -> int:
        j = i + 1
        while j < len(self._lines) and continues(j):
            j += 1
        self._add(kind, self._lines[i].start, self._lines[j - 1].end)
        return j

    def _starts_other_block(self, j: int) -> bool:
        text = self._lines[j].text
        return bool(_FENCE_OPEN.match(text) or _HEADING.match(text) or self._table_starts(j))

    def _table_starts(self, j: int) -> bool:
        text = self._lines[j].text
        if text.lstrip().startswith("|"):
            return True
        nxt = j + 1
        return (
            "|" in text
            and nxt < len(self._lines)
            and bool(_TABLE_DELIMITER.match(self._lines[nxt].text))
        )

    def _table_continues(self, j: int) -> bool:
        line = self._lines[j]
        text = line.text
        return (
            not line.blank
            and "|" in text
            and not (_FENCE_OPEN.match(text) or _HEADING.match(text))
        )

    def _list_continues(self, j: int) -> bool:
        line = self._lines[j]
        if line.blank:
            # A blank line keeps the list going only if an item or indented text follows.
            k = j + 1
            while k < len(self._lines) and self._lines[k].blank:
                k += 1
            if k == len(self._lines):
                return False
            following = self._lines[k].text
            indented = following[:1] in (" ", "\t")
            return (bool(_LIST_ITEM.match(following)) or indented) and not (
                self._starts_other_block(k)
            )
        return not self._starts_other_block(j)

    def _paragraph_continues(self, j: int) -> bool:
        line = self._lines[j]
        return not (
            line.blank
            or self._starts_other_block(j)
            or _LIST_ITEM.match(line.text)
            or _THEMATIC_BREAK.match(line.text)
        )
