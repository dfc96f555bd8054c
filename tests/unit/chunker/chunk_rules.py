"""The chunker's promises, checked against what a generated document records (its tables row by
row, its fences) rather than against the chunker's own view of the text. Shared by the
split_markdown and parent-child tests, which check the same rules on different chunk lists.

A region ``[lo, hi)`` is the range that was split: the whole text, or one parent's range for
its children.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from tests.unit.chunker.generated_markdown import GeneratedDocument, GeneratedTable
from workers.chunker import ChunkerConfig, TextChunk


def continued_table(document: GeneratedDocument, start: int) -> GeneratedTable | None:
    """The table a chunk starting at ``start`` continues past its header, if any."""
    return next((t for t in document.tables if t.continued_at(start)), None)


def fence_at(document: GeneratedDocument, offset: int) -> tuple[int, int] | None:
    """The fence ``offset`` lies strictly inside of (after its first character), if any."""
    return next(((s, e) for s, e in document.fences if s < offset < e), None)


def fence_lines(document: GeneratedDocument, fence: tuple[int, int]) -> tuple[str, str]:
    """The opening line (with its line break) a continuation of ``fence`` repeats, and the
    closing line (after a line break) a chunk ending inside it adds."""
    opening = document.text[fence[0] : document.text.index("\n", fence[0]) + 1]
    marker = re.match(r"`+|~+", opening)
    assert marker is not None
    return opening, "\n" + marker.group()


def assert_content(document: GeneratedDocument, chunk: TextChunk) -> None:
    """A chunk continuing a table is the table's header, a line break, then the slice its
    offsets name; one starting inside a fence is the fence's opening line, then the slice;
    one ending inside a fence ends with a closing line after the slice; any other chunk is
    exactly that slice."""
    text = document.text
    assert 0 <= chunk.start < chunk.end <= len(text)
    body = text[chunk.start : chunk.end]
    assert body.strip(), "no empty or whitespace-only chunk"
    table = continued_table(document, chunk.start)
    expected = body if table is None else table.header + "\n" + body
    started_in, ends_in = fence_at(document, chunk.start), fence_at(document, chunk.end)
    if started_in is not None:
        expected = fence_lines(document, started_in)[0] + expected
    if ends_in is not None:
        expected += fence_lines(document, ends_in)[1]
    assert chunk.content == expected, f"chunk {chunk.index} at {chunk.start}:{chunk.end}"


def assert_size(document: GeneratedDocument, chunk: TextChunk, config: ChunkerConfig) -> None:
    """Only a table header with a single row may exceed the size."""
    if len(chunk.content) <= config.chunk_size:
        return
    single_rows = {
        table.header + "\n" + document.text[row_start:row_end]
        for table in document.tables
        if table.start <= chunk.start and chunk.end <= table.end
        for row_start, row_end in table.rows
    }
    assert chunk.content in single_rows, f"chunk {chunk.index} is too big: {chunk.content!r}"


def assert_continuations_have_no_overlap(
    document: GeneratedDocument, chunks: Sequence[TextChunk]
) -> None:
    """A chunk continuing a table starts right after the row the previous chunk ends with."""
    for previous, chunk in itertools.pairwise(chunks):
        if continued_table(document, chunk.start) is not None:
            assert previous.end == chunk.start - 1, f"chunk {chunk.index} overlaps"


def assert_fences_whole_or_cut_between_lines(
    document: GeneratedDocument,
    chunks: Sequence[TextChunk],
    config: ChunkerConfig,
    lo: int,
    hi: int,
) -> None:
    """The part of a fence inside the region stays in one chunk when it fits (with the lines
    it repeats or adds); otherwise a chunk starting inside it starts right after the previous
    chunk (no overlap), at the next line or, for a line too long to fit, in the same line, and
    each of its characters lies in exactly one chunk."""
    text = document.text
    for fence in document.fences:
        part_start, part_end = max(fence[0], lo), min(fence[1], hi)
        if part_start >= part_end:
            continue
        opening, closing = fence_lines(document, fence)
        added = len(opening) * (part_start > fence[0]) + len(closing) * (part_end < fence[1])
        if part_end - part_start + added <= config.chunk_size:
            assert any(c.start <= part_start and part_end <= c.end for c in chunks)
            for chunk in chunks:
                assert not part_start < chunk.start < part_end, f"fence {fence} is cut"
                assert not part_start < chunk.end < part_end, f"fence {fence} is cut"
            continue
        for previous, chunk in itertools.pairwise(chunks):
            if part_start < chunk.start < part_end:
                gap = text[previous.end : chunk.start]
                assert gap in ("", "\n"), f"chunk {chunk.index} overlaps or skips code"
        for position in range(part_start, part_end):
            holders = [c for c in chunks if c.start <= position < c.end]
            # (The line break between two pieces is in neither.)
            cut_break = text[position] == "\n" and not holders
            assert len(holders) == 1 or cut_break, f"{position} of {fence}: {len(holders)} chunks"


def assert_tables_cut_between_rows(
    document: GeneratedDocument,
    chunks: Sequence[TextChunk],
    config: ChunkerConfig,
    lo: int,
    hi: int,
) -> None:
    """The part of a table inside the region stays in one chunk when it fits (its repeated
    header included); otherwise it is cut only between body rows, and its header rows and
    each body row lie in exactly one chunk."""
    for table in document.tables:
        starts = {row_start for row_start, _ in table.rows}
        ends = {row_end for _, row_end in table.rows}
        for chunk in chunks:
            if table.start < chunk.start < table.end:
                assert chunk.start in starts, f"chunk {chunk.index} starts mid-table"
            if table.start < chunk.end < table.end:
                assert chunk.end in ends, f"chunk {chunk.index} ends mid-table"
        part_start, part_end = max(table.start, lo), min(table.end, hi)
        if part_start >= part_end:
            continue
        rows = [(s, e) for s, e in table.rows if part_start <= s and e <= part_end]
        repeated = len(table.header) + 1 if table.continued_at(part_start) else 0
        if part_end - part_start + repeated <= config.chunk_size or len(rows) == 1:
            # It fits, or a single row is left with nowhere to cut: it stays whole.
            assert any(c.start <= part_start and part_end <= c.end for c in chunks)
            for chunk in chunks:
                assert not part_start < chunk.start < part_end, "a whole table part is cut"
                assert not part_start < chunk.end < part_end, "a whole table part is cut"
            continue
        assert not any(c.start <= part_start and part_end <= c.end for c in chunks)
        pieces = rows + ([(table.start, table.header_end)] if part_start == table.start else [])
        for piece_start, piece_end in pieces:
            holders = [c for c in chunks if c.start <= piece_start and piece_end <= c.end]
            assert len(holders) == 1, f"{document.text[piece_start:piece_end]!r} not once"


def assert_region_rules(
    document: GeneratedDocument,
    chunks: Sequence[TextChunk],
    config: ChunkerConfig,
    lo: int = 0,
    hi: int | None = None,
) -> None:
    """Every rule above, for the chunks that split ``text[lo:hi]`` with ``config``."""
    hi = len(document.text) if hi is None else hi
    for chunk in chunks:
        assert lo <= chunk.start < chunk.end <= hi
        assert_content(document, chunk)
        assert_size(document, chunk, config)
    assert_continuations_have_no_overlap(document, chunks)
    assert_fences_whole_or_cut_between_lines(document, chunks, config, lo, hi)
    assert_tables_cut_between_rows(document, chunks, config, lo, hi)
