"""Markdown-aware splitting into chunks with code-point offsets and heading breadcrumbs.

The text is cut into blocks (see ``blocks``); blocks bigger than ``chunk_size`` are split
recursively by the configured separators, except tables, which are cut only between rows,
fenced ``json``, which is cut between the members of its objects and arrays
(``json_chunks``; the chunk's breadcrumb then ends with its JSON path, e.g.
``$.orders[3].customer``), and other fenced code, which is cut between lines
(``code_fences``); the pieces are then packed greedily into chunks of at most ``chunk_size``
code points.

No chunk is longer than ``chunk_size`` except one that is a single unit the chunker never
cuts: one table body row with the header and delimiter rows it repeats (a table is cut only
between rows), or a fence when the size cannot hold its opening and closing lines and one
character of code. Text with no separator at all, and a code line with no space, is cut at
fixed positions, so it never exceeds the size. The chunking stage records such chunks in its
span (``oversize_chunks``, ``oversize_max_chars``).

A table cut into several chunks keeps its meaning in each: every chunk that continues it
starts with the table's header and delimiter rows again. Such a chunk's ``content`` is
that header, a line break, then ``text[start:end]`` (the offsets cover the rows it adds, so
every body row belongs to exactly one chunk). Likewise a code fence cut into several chunks
reads as code in each: a chunk starting inside it starts with the fence's opening line and a
line break, and a chunk ending inside it ends with a line break and the marker (``content``
is opening line + ``text[start:end]`` + closing line, each present only when needed). Every
other chunk's ``content`` is exactly ``text[start:end]``. What is added counts toward
``chunk_size``.

Overlap: a chunk after the first starts up to ``chunk_overlap`` code points before the end of
the previous one, at the first word boundary in that window (right after whitespace or a
separator), never inside a heading line, a table or a code block, never at a row group of a
cut table or a piece of a cut fence, and never so early that the chunk would exceed
``chunk_size``. A chunk that starts with a heading, continues a cut table or a cut code
fence, or starts with a piece of a cut json fence gets no overlap, so a section (or a JSON
path) starts cleanly.

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
from workers.chunker.code_fences import code_fence
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
        # Without a generator and a join: one per chunk, and most have no path.
        trail, path = headings.at(self.start), self.path
        if not path:
            return trail
        return f"{trail} > {path}" if trail else path


def split_markdown(text: str, config: ChunkerConfig) -> list[TextChunk]:
    blocks = scan_blocks(text)
    breadcrumbs = Breadcrumbs(blocks)
    headers = _TableHeaders(text, blocks)
    fences = _Fences(text, blocks)
    return _text_chunks(text, _chunk_spans(text, blocks, config, headers, fences), breadcrumbs)


def split_parent_child(
    text: str, parent_config: ChunkerConfig, child_config: ChunkerConfig
) -> tuple[list[TextChunk], list[ChildChunk]]:
    """Parents split the whole text; each parent's range is split again into children."""
    blocks = scan_blocks(text)
    breadcrumbs = Breadcrumbs(blocks)
    headers = _TableHeaders(text, blocks)
    fences = _Fences(text, blocks)
    parents = _text_chunks(
        text, _chunk_spans(text, blocks, parent_config, headers, fences), breadcrumbs
    )
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


def _text_chunks(text: str, spans: Sequence[_Span], breadcrumbs: Breadcrumbs) -> list[TextChunk]:
    """The chunks of ``spans``: one per chunk, so the common case (nothing added in front or
    after, no JSON path) is done inline, without calls."""
    chunks: list[TextChunk] = []
    append = chunks.append
    trail_at = breadcrumbs.at
    for index, span in enumerate(spans):
        start, end = span.start, span.end
        if span.header or span.closer or span.path:
            append(
                TextChunk(index, span.chunk_text(text), start, end, span.breadcrumb(breadcrumbs))
            )
        else:
            append(TextChunk(index, text[start:end], start, end, trail_at(start)))
    return chunks


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
        table = BlockKind.TABLE  # (bound once: an Enum member lookup is slow)
        self._tables = [block for block in blocks if block.kind is table]
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
        fence = BlockKind.FENCE  # (bound once: an Enum member lookup is slow)
        self._fences = [block for block in blocks if block.kind is fence]
        self._starts = [block.start for block in self._fences]
        self._index_of = {block.start: index for index, block in enumerate(self._fences)}
        self._splitters: dict[int, JsonSplitter | None] = {}

    def units(self, block: Block, config: ChunkerConfig) -> list[_Unit] | None:
        """The units of a (clipped) fence block: a json fence's pieces along its structure,
        or another fence's pieces between lines; None for a whole fence that fits, and for
        one that cannot be cut (it stays one block)."""
        index = self._index_of.get(block.start, -1)
        if index >= 0 and self._fences[index].end == block.end:
            if block.end - block.start <= config.chunk_size:
                return None  # (most fences: without a search)
        else:
            index = bisect.bisect_right(self._starts, block.start) - 1
            if index < 0 or self._fences[index].end < block.end:
                return None
        json_pieces = self._json_pieces(index, block, config)
        if json_pieces is not None:
            kind = BlockKind.FENCE
            return [_Unit(p.start, p.end, kind, path=p.path) for p in json_pieces]
        whole = self._fences[index]
        fence = code_fence(self._text, whole.start, whole.end)
        code_pieces = fence.pieces(self._text, block.start, block.end, config.chunk_size)
        if code_pieces is None:
            return None
        kind = BlockKind.FENCE
        return [_Unit(p.start, p.end, kind, True, p.opener, closer=p.closer) for p in code_pieces]

    def _json_pieces(
        self, index: int, block: Block, config: ChunkerConfig
    ) -> list[JsonPiece] | None:
        """The pieces of a (clipped) fence block of json; None for other fences."""
        whole = self._fences[index]
        clipped = (block.start, block.end) != (whole.start, whole.end)
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
    append = units.append
    size = config.chunk_size
    # Bound once (an Enum member lookup is slow): this loop runs once per block.
    table, fence, heading = BlockKind.TABLE, BlockKind.FENCE, BlockKind.HEADING
    for block in blocks:
        kind, start, end = block.kind, block.start, block.end
        if kind is table:
            inherited = headers.inherited(block)
            if inherited or end - start > size:
                units += _table_units(text, block, config, inherited)
                continue
        elif kind is fence:
            fence_units = fences.units(block, config)
            if fence_units is not None:
                units += fence_units
                continue
            append(_Unit(start, end, kind))
            continue
        if end - start <= size:
            append(_Unit(start, end, kind))
            continue
        # An oversized heading is just long text once it is cut.
        if kind is heading:
            kind = BlockKind.PARAGRAPH
        units += [
            _Unit(left, right, kind)
            for left, right in split_span(text, start, end, size, config.separators)
        ]
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
    table = BlockKind.TABLE
    units: list[_Unit] = []
    first = 0
    while first < len(rows):
        # The group's rows: from ``first`` to the last that keeps it within the size (at
        # least one), found by bisection rather than row by row.
        limit = group_start + config.chunk_size - len(group_header)
        last = max(first, bisect.bisect_right(ends, limit, first) - 1)
        units.append(_Unit(group_start, ends[last], table, True, group_header))
        first = last + 1
        if first < len(rows):
            group_header, group_start = header, rows[first][0]
    return units


def _pack(text: str, units: Sequence[_Unit], config: ChunkerConfig) -> list[_Span]:
    spans: list[_Span] = []
    # Units are in order and do not overlap, so their ends increase: the units a chunk takes
    # are found by bisection.
    ends = [unit.end for unit in units]
    # Only json fence pieces have paths: most texts have none, and their chunks need not
    # gather them.
    has_paths = any(unit.path for unit in units)
    size, overlap = config.chunk_size, config.chunk_overlap
    boundary = _boundary_pattern(config.separators)
    heading = BlockKind.HEADING
    bisect_right = bisect.bisect_right
    count = len(units)
    i = 0
    while i < count:
        first = units[i]
        start = first.start
        # A piece of a cut json fence starts its own path: text repeated from the piece
        # before would sit under the wrong one.
        if spans and overlap and first.kind is not heading and not first.header and not first.path:
            start = _overlap_start(text, spans[-1], units, i, size, overlap, boundary)
        header = first.header if start == first.start else ""
        # (At least i + 1: bisection starts there.)
        j = bisect_right(ends, start + size - len(header), i + 1)
        if j < count:
            while j - 1 > i and units[j - 1].kind is heading:
                j -= 1
        last = units[j - 1]
        if last.closer:  # (rare: tested apart, most chunks need not pay for it)
            j = _closing_fits(units, i, j, start, size - len(header))
            last = units[j - 1]
        path = ""
        if has_paths:
            path = json_path(common_path([unit.path for unit in units[i:j] if unit.path]))
        spans.append(_Span(start, last.end, header, path, last.closer))
        i = j
    return spans


def _closing_fits(units: Sequence[_Unit], i: int, j: int, start: int, room: int) -> int:
    """How many units (``j``, at least ``i + 1``) a chunk from ``start`` holding ``units[i:j]``
    keeps when the last one is a piece of a cut fence: its closing line must fit in ``room``
    too, and a heading is still not the last of a chunk followed by more."""
    while j - 1 > i and (
        units[j - 1].end + len(units[j - 1].closer) - start > room
        or units[j - 1].kind is BlockKind.HEADING
    ):
        j -= 1
    return j


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
    earliest = first.end - size
    if first.closer:  # the closing line a piece of a cut fence adds counts toward the size
        earliest += len(first.closer)
    low = max(previous.end - overlap, earliest, previous.start + 1)
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
        # (A loop, not next() over a generator: this runs once per chunk.)
        for start, end in protected:
            if start < position < end:
                position = end
                break
        else:
            return position
    return first.start


@functools.lru_cache(maxsize=64)
def _boundary_pattern(separators: tuple[str, ...]) -> re.Pattern[str]:
    """Matches (empty) at a word boundary: a non-space right after whitespace or a separator.
    One regex search instead of testing every position of the overlap window in Python."""
    after = "".join(f"|(?<={re.escape(separator)})" for separator in separators)
    return re.compile(f"(?:(?<=\\s){after})(?=\\S)")
