"""Cuts Markdown into blocks: headings, paragraphs, list runs, tables, fenced code.

Only ATX headings (``# Title``) count as headings; setext underlines are plain paragraphs.
Block spans never include the blank lines between blocks, nor trailing whitespace.
``table_layout`` tells a table's header rows from its body rows, the only places a table
may be cut.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from dataclasses import dataclass
from enum import Enum


class BlockKind(Enum):
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    TABLE = "table"
    FENCE = "fence"


# The members as plain globals for the scanner's per-line and per-block code: on Python 3.11
# ``BlockKind.X`` costs ten times a global lookup.
_HEADING_KIND = BlockKind.HEADING
_PARAGRAPH_KIND = BlockKind.PARAGRAPH
_LIST_KIND = BlockKind.LIST
_TABLE_KIND = BlockKind.TABLE
_FENCE_KIND = BlockKind.FENCE


@dataclass(slots=True)
class Block:
    """A block's kind and span in the text; a heading's level and its label ("## Title").
    (Not frozen: a document has thousands, and a frozen dataclass, or a named tuple, is
    several times slower to make.)"""

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


# What a line is, as bit flags worked out once, when the scanner first looks at the line (it
# may ask several times: does it continue a paragraph, start a table, ...).
_IS_BLANK = 1
_IS_FENCE = 2
_IS_HEADING = 4
_IS_THEMATIC = 8
_IS_LIST = 16
_HAS_PIPE = 32
_IS_TABLE_START = 64
# What ends a list item's lines, and with the rest what ends a paragraph and a table.
_OTHER_BLOCK = _IS_FENCE | _IS_HEADING | _IS_TABLE_START
_PARAGRAPH_STOP = _IS_BLANK | _IS_LIST | _IS_THEMATIC | _OTHER_BLOCK
# Most lines are prose or code (a first visible character that starts no block, and no pipe),
# table rows (a pipe first, and no dash that could make a delimiter row) or list items (a
# marker, then text that cannot make a thematic break, and no pipe). The patterns look at the
# start of a line only: ``in`` finds a pipe or a dash far faster than a regex scan.
_PLAIN_START = re.compile(r"\s*[^\s`~#*_+|\d-]")
_ITEM_START = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+[^\s*_-]")


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
    return _Scanner(text, starts, lines, hi).scan()


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


def fence_opening(line: str) -> re.Match[str] | None:
    """The match of a fence's opening line (its marker is group "fence"), or None."""
    return _FENCE_OPEN.match(line)


def _line_starts(lines: list[str], offset: int) -> list[int]:
    """Where each line starts, the first at ``offset``, a line break after each: line k
    starts after k line breaks and the k lines before it (computed without a Python loop)."""
    lengths = itertools.accumulate(map(len, lines), initial=0)
    starts = list(map(operator.add, lengths, itertools.count(offset)))
    starts.pop()  # where a line after the last would start
    return starts


class _Scanner:
    """A line's flags are worked out when the scanner first looks at it; the rows of a table
    and the lines of a fence are never looked at one by one: where the table or the fence
    ends is found by one regex search over the text (most lines of a document are table rows
    or code, and a Python step per line was most of the chunker's time)."""

    def __init__(self, text: str, starts: list[int], lines: list[str], hi: int) -> None:
        self._text = text
        self._starts = starts
        self._lines = lines
        self._hi = hi
        self._flags = [-1] * len(lines)
        self._blocks: list[Block] = []

    def _flag(self, i: int) -> int:
        flags = self._flags[i]
        if flags < 0:
            line = self._lines[i]
            if not line:
                flags = _IS_BLANK
            elif "|" not in line:
                if _PLAIN_START.match(line):
                    flags = 0
                elif _ITEM_START.match(line):
                    flags = _IS_LIST
                else:
                    flags = _line_flags(line)
            elif line[:1] == "|" and "-" not in line:
                flags = _HAS_PIPE | _IS_TABLE_START
            else:
                flags = _line_flags(line)
            if flags & _HAS_PIPE and not flags & _IS_TABLE_START and i + 1 < len(self._lines):
                # A line with a pipe followed by a delimiter row starts a table too.
                following = self._lines[i + 1]
                if "|" in following and "-" in following and _TABLE_DELIMITER.match(following):
                    flags |= _IS_TABLE_START
            self._flags[i] = flags
        return flags

    def _end(self, i: int) -> int:
        return self._starts[i] + len(self._lines[i])

    def _line_at(self, match: re.Match[str] | None) -> int:
        """The line a search matched at the start of, or the line count for no match."""
        if match is None:
            return len(self._lines)
        return bisect.bisect_left(self._starts, match.start())

    def scan(self) -> list[Block]:
        lines = self._lines
        count = len(lines)
        flag = self._flag
        i = 0
        while i < count:
            if not lines[i]:  # most blank lines, without a call
                i += 1
                continue
            line = flag(i)
            if line & _IS_BLANK:
                i += 1
            elif line & _IS_FENCE:
                i = self._fence(i)
            elif line & _IS_HEADING:
                self._heading(i)
                i += 1
            elif line & _IS_TABLE_START:
                j = i + 1
                if j < count:
                    j = self._line_at(_TABLE_END.search(self._text, self._starts[j], self._hi))
                i = self._run(_TABLE_KIND, i, j)
            elif line & _IS_THEMATIC:
                self._add(_PARAGRAPH_KIND, self._starts[i], self._end(i))
                i += 1
            elif line & _IS_LIST:
                i = self._run(_LIST_KIND, i, self._list_end(i))
            else:
                j = i + 1
                while j < count and not flag(j) & _PARAGRAPH_STOP:
                    j += 1
                i = self._run(_PARAGRAPH_KIND, i, j)
        return self._blocks

    def _add(self, kind: BlockKind, start: int, end: int, level: int = 0, label: str = "") -> None:
        text = self._text
        while end > start and text[end - 1].isspace():
            end -= 1
        if kind is _PARAGRAPH_KIND or kind is _HEADING_KIND:
            while start < end and text[start].isspace():
                start += 1
        if start < end:
            self._blocks.append(Block(kind, start, end, level, label))

    def _run(self, kind: BlockKind, i: int, j: int) -> int:
        """Lines ``i`` to ``j - 1`` as one block; the next line to look at."""
        self._add(kind, self._starts[i], self._starts[j - 1] + len(self._lines[j - 1]))
        return j

    def _fence(self, i: int) -> int:
        match = _FENCE_OPEN.match(self._lines[i])
        assert match is not None
        j = i + 1
        if j < len(self._lines):
            closing = closing_fence(match.group("fence"))
            j = self._line_at(closing.search(self._text, self._starts[j], self._hi))
        last = min(j, len(self._lines) - 1)  # an unclosed fence runs to the end
        self._add(_FENCE_KIND, self._starts[i], self._end(last))
        return last + 1

    def _heading(self, i: int) -> None:
        match = _HEADING.match(self._lines[i])
        assert match is not None
        level = len(match.group("hashes"))
        title = _CLOSING_HASHES.sub("", (match.group("title") or "").strip()).strip()
        label = "#" * level + (" " + title if title else "")
        self._add(_HEADING_KIND, self._starts[i], self._end(i), level, label)

    def _list_end(self, i: int) -> int:
        flag = self._flag
        count = len(self._lines)
        j = i + 1
        while j < count:
            line = flag(j)
            if line & _IS_BLANK:
                # A blank line keeps the list going only if an item or indented text follows.
                k = j + 1
                while k < count and flag(k) & _IS_BLANK:
                    k += 1
                if k == count:
                    return j
                indented = self._lines[k][:1] in (" ", "\t")
                if not (flag(k) & _IS_LIST or indented) or flag(k) & _OTHER_BLOCK:
                    return j
                j = k + 1
            elif line & _OTHER_BLOCK:
                return j
            else:
                j += 1
        return j


# The searches over the whole text see each line with its trailing carriage returns, which the
# line-by-line patterns never see: ``\r*`` before each end of line.
# The first line that does not go on with a table: no pipe (blank lines included), a heading
# or a fence opening.
_TABLE_END = re.compile(
    r"^(?:[^|\n]*$| {0,3}#{1,6}(?:[ \t]|\r*$)|[ \t]*(?:`{3,}(?=[^`\n]*$)|~{3,}))", re.M
)


@functools.lru_cache(maxsize=32)
def closing_fence(fence: str) -> re.Pattern[str]:
    return re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*\r*$", re.M)
