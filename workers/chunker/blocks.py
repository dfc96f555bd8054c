"""Cuts Markdown into blocks: headings, paragraphs, list runs, tables, fenced code.

Only ATX headings (``# Title``) count as headings; setext underlines are plain paragraphs.
Block spans never include the blank lines between blocks, nor trailing whitespace.
``table_layout`` tells a table's header rows from its body rows, the only places a table
may be cut.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple


class BlockKind(Enum):
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    TABLE = "table"
    FENCE = "fence"


class Block(NamedTuple):
    """(A named tuple: a document has thousands, and a frozen dataclass is several times
    slower to make.)"""

    kind: BlockKind
    start: int
    end: int
    heading_level: int = 0
    heading_label: str = ""


@dataclass(frozen=True)
class TableLayout:
    """A table block's rows as (start, end) spans without line breaks: ``header`` covers the
    header and delimiter rows (None when the table has none), ``rows`` the body rows."""

    header: tuple[int, int] | None
    rows: tuple[tuple[int, int], ...]


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
_HAS_PIPE = 32
_IS_DELIMITER = 64
_IS_TABLE_START = 128
# What ends a list item's lines, and with the rest what ends a paragraph and a table.
_OTHER_BLOCK = _IS_FENCE | _IS_HEADING | _IS_TABLE_START
_PARAGRAPH_STOP = _IS_BLANK | _IS_LIST | _IS_THEMATIC | _OTHER_BLOCK
# A table goes on while its lines have a pipe and are neither blank, fence nor heading.
_TABLE_STOP = _HAS_PIPE | _IS_BLANK | _IS_FENCE | _IS_HEADING
# Most lines are prose or code: a first visible character that starts no block, and no pipe.
# Most others are table rows (a pipe first, and no dash that could make a delimiter row) or
# list items (a marker, then text that cannot make a thematic break, and no pipe).
# One regex for the three and blank lines, its matching group telling which.
_COMMON_LINE = re.compile(
    r"(\s*[^\s`~#*_+|\d-][^|]*)|(\|[^-]*)|([ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+[^\s|*_-][^|]*)"
    r"|(\s*)"
)
_COMMON_FLAGS = (0, 0, _HAS_PIPE | _IS_TABLE_START, _IS_LIST, _IS_BLANK)


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
            flags |= _IS_TABLE_START
        if "-" in line and _TABLE_DELIMITER.match(line):
            flags |= _IS_DELIMITER
    return flags


def scan_blocks(text: str, lo: int = 0, hi: int | None = None) -> list[Block]:
    """The blocks of ``text[lo:hi]``, in order, with offsets into ``text``."""
    hi = len(text) if hi is None else hi
    lines = text[lo:hi].split("\n")
    if lines[-1] == "":
        lines.pop()  # the text ends with a line break, or is empty
    starts = _line_starts(lines, lo)
    if "\r" in text:
        # Without the carriage returns of CRLF line breaks.
        lines = [line.rstrip("\r") for line in lines]
    return _Scanner(text, starts, lines).scan()


def table_layout(text: str, block: Block) -> TableLayout:
    """The header and body rows of a TABLE block: the header is the first row when the
    second is a delimiter row (``|---|---|``)."""
    lines = text[block.start : block.end].split("\n")
    starts = _line_starts(lines, block.start)
    if "\r" in text[block.start : block.end]:
        lines = [line.rstrip("\r") for line in lines]
    rows = list(zip(starts, map(operator.add, starts, map(len, lines)), strict=True))
    if len(rows) >= 2 and _TABLE_DELIMITER.match(lines[1]):
        return TableLayout((rows[0][0], rows[1][1]), tuple(rows[2:]))
    return TableLayout(None, tuple(rows))


def _line_starts(lines: list[str], offset: int) -> list[int]:
    """Where each line starts, the first at ``offset``, a line break after each: line k
    starts after k line breaks and the k lines before it (computed without a Python loop)."""
    lengths = itertools.accumulate(map(len, lines), initial=0)
    starts = list(map(operator.add, lengths, itertools.count(offset)))
    starts.pop()  # where a line after the last would start
    return starts


class _Scanner:
    """Every run of lines is found by a loop over the precomputed flags, not a call per line."""

    def __init__(self, text: str, starts: list[int], lines: list[str]) -> None:
        self._text = text
        self._starts = starts
        self._lines = lines
        common = _COMMON_LINE.fullmatch
        flags = [
            _COMMON_FLAGS[match.lastindex or 0] if (match := common(line)) else _line_flags(line)
            for line in lines
        ]
        # A line with a pipe followed by a delimiter row starts a table too.
        for i in [i for i, line in enumerate(flags) if line & _IS_DELIMITER]:
            if i and flags[i - 1] & _HAS_PIPE:
                flags[i - 1] |= _IS_TABLE_START
        self._flags = flags
        self._blocks: list[Block] = []

    def _end(self, i: int) -> int:
        return self._starts[i] + len(self._lines[i])

    def scan(self) -> list[Block]:
        flags = self._flags
        count = len(flags)
        i = 0
        while i < count:
            line = flags[i]
            if line & _IS_BLANK:
                i += 1
            elif line & _IS_FENCE:
                i = self._fence(i)
            elif line & _IS_HEADING:
                self._heading(i)
                i += 1
            elif line & _IS_TABLE_START:
                j = i + 1
                while j < count and flags[j] & _TABLE_STOP == _HAS_PIPE:
                    j += 1
                i = self._run(BlockKind.TABLE, i, j)
            elif line & _IS_THEMATIC:
                self._add(BlockKind.PARAGRAPH, self._starts[i], self._end(i))
                i += 1
            elif line & _IS_LIST:
                i = self._run(BlockKind.LIST, i, self._list_end(i))
            else:
                j = i + 1
                while j < count and not flags[j] & _PARAGRAPH_STOP:
                    j += 1
                i = self._run(BlockKind.PARAGRAPH, i, j)
        return self._blocks

    def _add(self, kind: BlockKind, start: int, end: int, level: int = 0, label: str = "") -> None:
        text = self._text
        while end > start and text[end - 1].isspace():
            end -= 1
        if kind is BlockKind.PARAGRAPH or kind is BlockKind.HEADING:
            while start < end and text[start].isspace():
                start += 1
        if start < end:
            self._blocks.append(Block(kind, start, end, level, label))

    def _run(self, kind: BlockKind, i: int, j: int) -> int:
        """Lines ``i`` to ``j - 1`` as one block; the next line to look at."""
        self._add(kind, self._starts[i], self._end(j - 1))
        return j

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

    def _list_end(self, i: int) -> int:
        flags = self._flags
        count = len(flags)
        j = i + 1
        while j < count:
            line = flags[j]
            if line & _IS_BLANK:
                # A blank line keeps the list going only if an item or indented text follows.
                k = j + 1
                while k < count and flags[k] & _IS_BLANK:
                    k += 1
                if k == count:
                    return j
                indented = self._lines[k][:1] in (" ", "\t")
                if not (flags[k] & _IS_LIST or indented) or flags[k] & _OTHER_BLOCK:
                    return j
                j = k + 1
            elif line & _OTHER_BLOCK:
                return j
            else:
                j += 1
        return j


@functools.lru_cache(maxsize=32)
def _closing_fence(fence: str) -> re.Pattern[str]:
    return re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
