"""Markdown-aware splitting into chunks with code-point offsets and heading breadcrumbs.

The text is cut into atomic blocks (see ``blocks``); blocks bigger than ``chunk_size`` are
split recursively by the configured separators, except tables and fenced code, which stay
whole; the pieces are then packed greedily into chunks of at most ``chunk_size`` code points.
A chunk holding a table or a code block bigger than ``chunk_size`` is the one exception to the
size limit.

Overlap: a chunk after the first starts up to ``chunk_overlap`` code points before the end of
the previous one, at the first word boundary in that window (right after whitespace or a
separator), never inside a heading line, a table or a code block, and never so early that
the chunk would exceed ``chunk_size``. A chunk that starts with a heading gets no overlap, so
a section starts cleanly. Each chunk's ``content`` is exactly ``text[start:end]``.

A heading is never the last thing in a chunk while more text follows: it moves to the next
chunk, the one it starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workers.chunker.blocks import Block, BlockKind, scan_blocks
from workers.chunker.breadcrumbs import Breadcrumbs
from workers.chunker.config import ChildChunk, ChunkerConfig, TextChunk
from workers.chunker.recursive import split_span


@dataclass(frozen=True)
class _Unit:
    """A piece the packer places whole: a block, or part of an oversized block."""

    start: int
    end: int
    kind: BlockKind

    @property
    def protected(self) -> bool:
        """No overlap may start inside it."""
        return self.kind in (BlockKind.HEADING, BlockKind.TABLE, BlockKind.FENCE)


def split_markdown(text: str, config: ChunkerConfig) -> list[TextChunk]:
    blocks = scan_blocks(text)
    breadcrumbs = Breadcrumbs(blocks)
    return [
        TextChunk(index, text[start:end], start, end, breadcrumbs.at(start))
        for index, (start, end) in enumerate(_chunk_spans(text, blocks, config))
    ]


def split_parent_child(
    text: str, parent_config: ChunkerConfig, child_config: ChunkerConfig
) -> tuple[list[TextChunk], list[ChildChunk]]:
    """Parents split the whole text; each parent's range is split again into children."""
    blocks = scan_blocks(text)
    breadcrumbs = Breadcrumbs(blocks)
    parents = [
        TextChunk(index, text[start:end], start, end, breadcrumbs.at(start))
        for index, (start, end) in enumerate(_chunk_spans(text, blocks, parent_config))
    ]
    children: list[ChildChunk] = []
    for parent in parents:
        parent_blocks = scan_blocks(text, parent.start, parent.end)
        for start, end in _chunk_spans(text, parent_blocks, child_config):
            children.append(
                ChildChunk(
                    len(children), text[start:end], start, end, breadcrumbs.at(start),
                    parent.index,
                )
            )
    return parents, children


def _chunk_spans(
    text: str, blocks: Sequence[Block], config: ChunkerConfig
) -> list[tuple[int, int]]:
    return _pack(text, _units(text, blocks, config), config)


def _units(text: str, blocks: Sequence[Block], config: ChunkerConfig) -> list[_Unit]:
    units: list[_Unit] = []
    for block in blocks:
        if block.atomic or block.end - block.start <= config.chunk_size:
            units.append(_Unit(block.start, block.end, block.kind))
            continue
        # An oversized heading is just long text once it is cut.
        kind = BlockKind.PARAGRAPH if block.kind is BlockKind.HEADING else block.kind
        units.extend(
            _Unit(start, end, kind)
            for start, end in split_span(
                text, block.start, block.end, config.chunk_size, config.separators
            )
        )
    return units


def _pack(text: str, units: Sequence[_Unit], config: ChunkerConfig) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(units):
        first = units[i]
        start = first.start
        if spans and config.chunk_overlap and first.kind is not BlockKind.HEADING:
            start = _overlap_start(text, spans[-1], units, i, config)
        j = i + 1
        while j < len(units) and units[j].end - start <= config.chunk_size:
            j += 1
        if j < len(units):
            while j - 1 > i and units[j - 1].kind is BlockKind.HEADING:
                j -= 1
        spans.append((start, units[j - 1].end))
        i = j
    return spans


def _overlap_start(
    text: str,
    previous: tuple[int, int],
    units: Sequence[_Unit],
    first_index: int,
    config: ChunkerConfig,
) -> int:
    """Where the chunk whose first new unit is ``units[first_index]`` starts."""
    first = units[first_index]
    previous_start, previous_end = previous
    low = max(
        previous_end - config.chunk_overlap,
        first.end - config.chunk_size,
        previous_start + 1,
    )
    protected = []
    k = first_index - 1
    while k >= 0 and units[k].end > low:
        if units[k].protected:
            protected.append((units[k].start, units[k].end))
        k -= 1
    for position in range(low, previous_end):
        if text[position].isspace() or not _after_boundary(text, position, config.separators):
            continue
        if any(start < position < end for start, end in protected):
            continue
        return position
    return first.start


def _after_boundary(text: str, position: int, separators: Sequence[str]) -> bool:
    if text[position - 1].isspace():
        return True
    return any(
        text.startswith(separator, position - len(separator))
        for separator in separators
        if position >= len(separator)
    )
