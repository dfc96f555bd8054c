"""Cuts Markdown into blocks: headings, paragraphs, list runs, tables, fenced code.

Only ATX headings (``# Title``) count as headings; setext underlines are plain paragraphs.
Block spans never include the blank lines between blocks, nor trailing whitespace.
``table_layout`` tells a table's header rows from its body rows, the only places a table
may be cut.
"""

from __future__ import annotations

import functools
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


# What each line is, worked out once per line (bit flags): the scanner asks about every line
# several times (does it continue a paragraph, start a table, ...), and a regex is run only
# when the line's first visible character allows a match.
_IS_BLANK = 1
_IS_FENCE = 2
_IS_HEADING = 4
_IS_THEMATIC = 8
_IS_LIST = 16
_STARTS_WITH_PIPE = 32
_HAS_PIPE = 64
_IS_DELIMITER = 128
_IS_OTHER_BLOCK = _IS_FENCE | _IS_HEADING


def _line_flags(line: str) -> int:
    visible = line.lstrip()
    if not visible:
        return _IS_BLANK
    first = visible[0]
    flags = 0
    if first in "`~" and _FENCE_OPEN.match(line):
        flags |= _IS_FENCE
    elif first == "#" and _HEADING.match(line):
        flags |= _IS_HEADING
    if first in "-*_" and _THEMATIC_BREAK.match(line):
        flags |= _IS_THEMATIC
    if (first in "-*+" or first.isdecimal()) and _LIST_ITEM.match(line):
        flags |= _IS_LIST
    if "|" in line:
        flags |= _HAS_PIPE
        if first == "|":
            flags |= _STARTS_WITH_PIPE
        if "-" in line and _TABLE_DELIMITER.match(line):
            flags |= _IS_DELIMITER
    return flags


def scan_blocks(text: str, lo: int = 0, hi: int | None = None) -> list[Block]:
    """The blocks of ``text[lo:hi]``, in order, with offsets into ``text``."""
    hi = len(text) if hi is None else hi
    lines = text[lo:hi].split("\n")
    if lines[-1] == "":
        lines.pop()  # the text ends with a line break, or is empty
    starts = []
    position = lo
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    # Without the carriage returns of CRLF line breaks.
    lines = [line.rstrip("\r") for line in lines]
    return _Scanner(text, starts, lines).scan()


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
    def __init__(self, text: str, starts: list[int], lines: list[str]) -> None:
        self._text = text
        self._starts = starts
        self._lines = lines
        self._flags = [_line_flags(line) for line in lines]
        self._blocks: list[Block] = []

    def _end(self, i: int) -> int:
        return self._starts[i] + len(self._lines[i])

    def scan(self) -> list[Block]:
        flags = self._flags
        i = 0
        while i < len(flags):
            line = flags[i]
            if line & _IS_BLANK:
                i += 1
            elif line & _IS_FENCE:
                i = self._fence(i)
            elif line & _IS_HEADING:
                self._heading(i)
                i += 1
            elif self._table_starts(i):
                i = self._run(i, BlockKind.TABLE, self._table_continues)
            elif line & _IS_THEMATIC:
                self._add(BlockKind.PARAGRAPH, self._starts[i], self._end(i))
                i += 1
            elif line & _IS_LIST:
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
        match = _FENCE_OPEN.match(self._lines[i])
        assert match is not None
        closing = _closing_fence(match.group("fence"))
        j = i + 1
        while j < len(self._lines) and not closing.match(self._lines[j]):
            j += 1
        last = min(j, len(self._lines) - 1)  # an unclosed fence runs to the end
        self._add(BlockKind.FENCE, self._starts[i], self._end(last))
        return last + 1

    def _heading(self, i: int) -> None:
        match = _HEADING.match(self._lines[i])
        assert match is not None
        level = len(match.group("hashes"))
        title = _CLOSING_HASHES.sub("", (match.group("title") or "").strip()).strip()
        label = "#" * level + (" " + title if title else "")
        self._add(BlockKind.HEADING, self._starts[i], self._end(i), level, label)

    def _run(self, i: int, kind: BlockKind, continues: Callable[[int], bool]) -> int:
        j = i + 1
        while j < len(self._lines) and continues(j):
            j += 1
        self._add(kind, self._starts[i], self._end(j - 1))
        return j

    def _starts_other_block(self, j: int) -> bool:
        return bool(self._flags[j] & _IS_OTHER_BLOCK) or self._table_starts(j)

    def _table_starts(self, j: int) -> bool:
        line = self._flags[j]
        if line & _STARTS_WITH_PIPE:
            return True
        nxt = j + 1
        return (
            bool(line & _HAS_PIPE)
            and nxt < len(self._flags)
            and bool(self._flags[nxt] & _IS_DELIMITER)
        )

    def _table_continues(self, j: int) -> bool:
        line = self._flags[j]
        return bool(line & _HAS_PIPE) and not line & (_IS_BLANK | _IS_OTHER_BLOCK)

    def _list_continues(self, j: int) -> bool:
        if self._flags[j] & _IS_BLANK:
            # A blank line keeps the list going only if an item or indented text follows.
            k = j + 1
            while k < len(self._flags) and self._flags[k] & _IS_BLANK:
                k += 1
            if k == len(self._flags):
                return False
            indented = self._lines[k][:1] in (" ", "\t")
            return (bool(self._flags[k] & _IS_LIST) or indented) and not self._starts_other_block(k)
        return not self._starts_other_block(j)

    def _paragraph_continues(self, j: int) -> bool:
        return not (
            self._flags[j] & (_IS_BLANK | _IS_LIST | _IS_THEMATIC) or self._starts_other_block(j)
        )


@functools.lru_cache(maxsize=32)
def _closing_fence(fence: str) -> re.Pattern[str]:
    return re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
