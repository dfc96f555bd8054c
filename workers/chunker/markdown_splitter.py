"""Markdown-aware splitting into chunks with code-point offsets and heading breadcrumbs.

The text is cut into blocks (see ``blocks``); blocks bigger than ``chunk_size`` are split
recursively by the configured separators, except fenced code, which stays whole, tables,
which are cut only between rows, and fenced ``json``, which is cut between the members of
its objects and arrays (``json_chunks``; the chunk's breadcrumb then ends with its JSON
path, e.g. ``$.orders[3].customer``); the pieces are then packed greedily into chunks of
at most ``chunk_size`` code points.

No chunk is longer than ``chunk_size`` except one that is a single unit the chunker never
cuts: a fenced code block (cut code would not read as code), or one table body row with the
header and delimiter rows it repeats (a table is cut only between rows). Text with no
separator at all is cut at fixed positions, so it never exceeds the size. The chunking stage
records such chunks in its span (``oversize_chunks``, ``oversize_max_chars``).

A table cut into several chunks keeps its meaning in each: every chunk that continues it
starts with the table's header and delimiter rows again. Such a chunk's ``content`` is
that header, a line break, then ``text[start:end]`` (the offsets cover the rows it adds, so
every body row belongs to exactly one chunk); every other chunk's ``content`` is exactly
``text[start:end]``. The header counts toward ``chunk_size``.

Overlap: a chunk after the first starts up to ``chunk_overlap`` code points before the end of
the previous one, at the first word boundary in that window (right after whitespace or a
separator), never inside a heading line, a table or a code block, never at a row group of a
cut table, and never so early that the chunk would exceed ``chunk_size``. A chunk that
starts with a heading, continues a cut table or starts with a piece of a cut json fence gets
no overlap, so a section (or a JSON path) starts cleanly.

A heading is never the last thing in a chunk while more text follows: it moves to the next
chunk, the one it starts.
"""

from __future__ import annotations

import bisect
import functools
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from workers.chunker.blocks import Block, BlockKind, scan_blocks, table_layout
from workers.chunker.breadcrumbs import Breadcrumbs
from workers.chunker.code_fences import FencePiece, code_fence
from workers.chunker.config import ChildChunk, ChunkerConfig, TextChunk
from workers.chunker.json_chunks import (
    JsonPiece,
    JsonSplitter,
    common_path,
    json_fence,
    json_path,
)
from workers.chunker.recursive import split_span


@dataclass(slots=True)
class _Unit:
    """A piece the packer places whole: a block, or part of an oversized block. (Not frozen:
    there are many of them, and a frozen dataclass, or a named tuple, is slower to make.)"""

    start: int
    end: int
    kind: BlockKind
    # A row group of a table cut between rows, or a piece of a code fence cut between lines.
    part: bool = False
    # What a chunk starting here repeats in front: the header and delimiter rows (with a line
    # break) of a cut table the row group continues, or the opening line of a cut fence.
    header: str = ""
    # The JSON path of a piece of a cut json fence.
    path: tuple[str, ...] = ()
    # The closing fence line (after a line break) a chunk ending here adds: set on the
    # pieces of a cut fence that do not reach its end.
    closer: str = ""


# No overlap may start inside a unit of these kinds.
_PROTECTED = (BlockKind.HEADING, BlockKind.TABLE, BlockKind.FENCE)  # a tuple: Enum hashing is slow


@dataclass(slots=True)
class _Span:
    start: int
    end: int
    header: str
    # The JSON path its pieces of a cut json fence lie under ("" for none).
    path: str = ""
    closer: str = ""

    def chunk_text(self, text: str) -> str:
        return self.header + text[self.start : self.end] + self.closer

    def breadcrumb(self, headings: Breadcrumbs) -> str:
        return " > ".join(part for part in (headings.at(self.start), self.path) if part)


def split_markdown(text: str, config: ChunkerConfig) -> list[TextChunk]:
    blocks = scan_blocks(text)
    breadcrumbs = Breadcrumbs(blocks)
    headers = _TableHeaders(text, blocks)
    fences = _Fences(text, blocks)
    return [
        TextChunk(index, span.chunk_text(text), span.start, span.end, span.breadcrumb(breadcrumbs))
        for index, span in enumerate(_chunk_spans(text, blocks, config, headers, fences))
    ]


def split_parent_child(
    text: str, parent_config: ChunkerConfig, child_config: ChunkerConfig
) -> tuple[list[TextChunk], list[ChildChunk]]:
    """Parents split the whole text; each parent's range is split again into children."""
    blocks = scan_blocks(text)
    breadcrumbs = Breadcrumbs(blocks)
    headers = _TableHeaders(text, blocks)
    fences = _Fences(text, blocks)
    parents = [
        TextChunk(index, span.chunk_text(text), span.start, span.end, span.breadcrumb(breadcrumbs))
        for index, span in enumerate(_chunk_spans(text, blocks, parent_config, headers, fences))
    ]
    children: list[ChildChunk] = []
    for parent in parents:
        parent_blocks = _clip(blocks, parent.start, parent.end)
        for span in _chunk_spans(text, parent_blocks, child_config, headers, fences):
            children.append(
                ChildChunk(
                    len(children),
                    span.chunk_text(text),
                    span.start,
                    span.end,
                    span.breadcrumb(breadcrumbs),
                    parent.index,
                )
            )
    return parents, children


def _clip(blocks: Sequence[Block], start: int, end: int) -> list[Block]:
    """The whole text's blocks cut to ``[start, end)``. Rescanning the range on its own would
    lose context: a parent that starts inside a table body whose rows have no edge pipes
    would not be seen as a table there."""
    return [
        replace(block, start=max(block.start, start), end=min(block.end, end))
        for block in blocks
        if block.start < end and block.end > start
    ]


class _TableHeaders:
    """The header a table block repeats when it is cut: its own, or — for a block that is
    the tail of a bigger table (a parent chunk continuing a cut table) — that table's."""

    def __init__(self, text: str, blocks: Sequence[Block]) -> None:
        self._text = text
        self._tables = [block for block in blocks if block.kind is BlockKind.TABLE]
        self._starts = [block.start for block in self._tables]
        self._headers: dict[int, tuple[int, int] | None] = {}

    def inherited(self, block: Block) -> str:
        """The header of the whole-text table ``block`` continues past its header, or ""."""
        index = bisect.bisect_right(self._starts, block.start) - 1
        # A block starting where its table starts is not a tail (split_markdown's blocks
        # are all whole tables): no need to lay the table out.
        if index < 0 or self._starts[index] == block.start or self._tables[index].end < block.end:
            return ""
        header = self._header_of(index)
        if header is None or block.start < header[1]:
            return ""
        return self._text[header[0] : header[1]] + "\n"

    def _header_of(self, index: int) -> tuple[int, int] | None:
        """Laid out once per table: every parent cut from a big table asks again."""
        if index not in self._headers:
            self._headers[index] = table_layout(self._text, self._tables[index]).header
        return self._headers[index]


class _Fences:
    """The fences of the whole text, found once, so that a fence block clipped to a parent
    chunk is still cut along its JSON structure (and gets its path) as a child, or repeats
    the fence's opening line and adds its closing line like the parent did."""

    def __init__(self, text: str, blocks: Sequence[Block]) -> None:
        self._text = text
        self._fences = [block for block in blocks if block.kind is BlockKind.FENCE]
        self._starts = [block.start for block in self._fences]
        self._splitters: dict[int, JsonSplitter | None] = {}

    def _index(self, block: Block) -> int:
        """The whole fence ``block`` lies in, by index; -1 for none."""
        index = bisect.bisect_right(self._starts, block.start) - 1
        return -1 if index < 0 or self._fences[index].end < block.end else index

    def code_pieces(self, block: Block, size: int) -> list[FencePiece] | None:
        """The pieces of a (clipped) fence block cut between lines; None for a whole fence
        that fits, and for one the size cannot cut (it stays whole)."""
        index = self._index(block)
        if index < 0:
            return None
        whole = self._fences[index]
        if (block.start, block.end) == (whole.start, whole.end) and whole.end - whole.start <= size:
            return None
        fence = code_fence(self._text, whole.start, whole.end)
        return fence.pieces(self._text, block.start, block.end, size)

    def json_pieces(self, block: Block, config: ChunkerConfig) -> list[JsonPiece] | None:
        """The pieces of a (clipped) fence block of json; None for other fences and for a
        whole json fence that fits (it stays one block, without a path)."""
        index = self._index(block)
        if index < 0:
            return None
        whole = self._fences[index]
        clipped = (block.start, block.end) != (whole.start, whole.end)
        if not clipped and block.end - block.start <= config.chunk_size:
            return None
        if index not in self._splitters:
            fence = json_fence(self._text, whole.start, whole.end)
            self._splitters[index] = None if fence is None else JsonSplitter(self._text, fence)
        splitter = self._splitters[index]
        if splitter is None:
            return None
        window = (block.start, block.end) if clipped else None
        return splitter.split(config.chunk_size, config.separators, window)


def _chunk_spans(
    text: str,
    blocks: Sequence[Block],
    config: ChunkerConfig,
    headers: _TableHeaders,
    fences: _Fences,
) -> list[_Span]:
    return _pack(text, _units(text, blocks, config, headers, fences), config)


def _units(
    text: str,
    blocks: Sequence[Block],
    config: ChunkerConfig,
    headers: _TableHeaders,
    fences: _Fences,
) -> list[_Unit]:
    units: list[_Unit] = []
    size = config.chunk_size
    for block in blocks:
        kind = block.kind
        if kind is BlockKind.TABLE:
            inherited = headers.inherited(block)
            if inherited or block.end - block.start > size:
                units.extend(_table_units(text, block, config, inherited))
                continue
        if kind is BlockKind.FENCE:
            json_pieces = fences.json_pieces(block, config)
            if json_pieces is not None:
                units += [_Unit(p.start, p.end, kind, path=p.path) for p in json_pieces]
                continue
            code_pieces = fences.code_pieces(block, size)
            if code_pieces is not None:
                units += [
                    _Unit(p.start, p.end, kind, True, p.opener, closer=p.closer)
                    for p in code_pieces
                ]
                continue
        if kind is BlockKind.FENCE or block.end - block.start <= size:
            units.append(_Unit(block.start, block.end, kind))
            continue
        # An oversized heading is just long text once it is cut.
        kind = BlockKind.PARAGRAPH if block.kind is BlockKind.HEADING else block.kind
        pieces = split_span(text, block.start, block.end, size, config.separators)
        units += [_Unit(start, end, kind) for start, end in pieces]
    return units


def _table_units(text: str, block: Block, config: ChunkerConfig, inherited: str) -> list[_Unit]:
    """A table bigger than ``chunk_size`` (or the tail of one, which repeats its header) as
    row groups, each at most ``chunk_size`` with the header it repeats (a single oversized row
    stands alone)."""
    layout = table_layout(text, block)
    if layout.header is not None:
        header = text[layout.header[0] : layout.header[1]] + "\n"
        group_header, group_start, group_end = "", block.start, layout.header[1]
    else:
        header = inherited
        group_header, group_start, group_end = inherited, block.start, block.start
    rows = layout.rows
    if not rows:
        return [_Unit(group_start, group_end, BlockKind.TABLE, True, group_header)]
    ends = list(map(operator.itemgetter(1), rows))
    units: list[_Unit] = []
    first = 0
    while first < len(rows):
        # The group's rows: from ``first`` to the last that keeps it within the size (at
        # least one), found by bisection rather than row by row.
        limit = group_start + config.chunk_size - len(group_header)
        last = max(first, bisect.bisect_right(ends, limit, first) - 1)
        units.append(_Unit(group_start, ends[last], BlockKind.TABLE, True, group_header))
        first = last + 1
        if first < len(rows):
            group_header, group_start = header, rows[first][0]
    return units


def _pack(text: str, units: Sequence[_Unit], config: ChunkerConfig) -> list[_Span]:
    spans: list[_Span] = []
    # Units are in order and do not overlap, so their ends increase: the units a chunk takes
    # are found by bisection.
    ends = [unit.end for unit in units]
    size, overlap = config.chunk_size, config.chunk_overlap
    boundary = _boundary_pattern(config.separators)
    i = 0
    while i < len(units):
        first = units[i]
        start = first.start
        # A piece of a cut json fence starts its own path: text repeated from the piece
        # before would sit under the wrong one.
        if (
            spans
            and overlap
            and first.kind is not BlockKind.HEADING
            and not first.header
            and not first.path
        ):
            start = _overlap_start(text, spans[-1], units, i, size, overlap, boundary)
        header = first.header if start == first.start else ""
        j = max(i + 1, bisect.bisect_right(ends, start + size - len(header), i + 1))
        # Not a heading last, nor a piece of a cut fence whose closing line would not fit.
        while j - 1 > i and (
            (j < len(units) and units[j - 1].kind is BlockKind.HEADING)
            or units[j - 1].end - start + len(header) + len(units[j - 1].closer) > size
        ):
            j -= 1
        last = units[j - 1]
        paths = [unit.path for unit in units[i:j] if unit.path]
        spans.append(_Span(start, last.end, header, json_path(common_path(paths)), last.closer))
        i = j
    return spans


def _overlap_start(
    text: str,
    previous: _Span,
    units: Sequence[_Unit],
    first_index: int,
    size: int,
    overlap: int,
    boundary: re.Pattern[str],
) -> int:
    """Where the chunk whose first new unit is ``units[first_index]`` starts, the earliest
    word boundary (``boundary``) in the overlap window that the rules allow."""
    first = units[first_index]
    # (The closing line a piece of a cut fence adds counts toward the size.)
    low = max(previous.end - overlap, first.end + len(first.closer) - size, previous.start + 1)
    # (lo, hi): no overlap may start at a position strictly between them.
    protected = []
    k = first_index - 1
    while k >= 0 and units[k].end > low:
        unit = units[k]
        if unit.kind in _PROTECTED:
            # Nor at the start of a cut table's row group: its rows would appear twice.
            protected.append((unit.start - 1 if unit.part else unit.start, unit.end))
        k -= 1
    position = low
    while (found := boundary.search(text, position, previous.end)) is not None:
        position = found.start()
        inside = next((end for start, end in protected if start < position < end), None)
        if inside is None:
            return position
        position = inside
    return first.start


@functools.lru_cache(maxsize=64)
def _boundary_pattern(separators: tuple[str, ...]) -> re.Pattern[str]:
    """Matches (empty) at a word boundary: a non-space right after whitespace or a separator.
    One regex search instead of testing every position of the overlap window in Python."""
    after = "".join(f"|(?<={re.escape(separator)})" for separator in separators)
    return re.compile(f"(?:(?<=\\s){after})(?=\\S)")
