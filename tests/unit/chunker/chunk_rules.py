"""The chunker's promises, checked against what a generated document records (its tables row by
row, its fences) rather than against the chunker's own view of the text. Shared by the
split_markdown and parent-child tests, which check the same rules on different chunk lists.

A region ``[lo, hi)`` is the range that was split: the whole text, or one parent's range for
its children.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from tests.unit.chunker.generated_markdown import GeneratedDocument, GeneratedTable
from workers.chunker import ChunkerConfig, TextChunk


def continued_table(document: GeneratedDocument, start: int) -> GeneratedTable | None:
    """The table a chunk starting at ``start`` continues past its header, if any."""
    return next((t for t in document.tables if t.continued_at(start)), None)


def assert_content(document: GeneratedDocument, chunk: TextChunk) -> None:
    """A chunk continuing a table is the table's header, a line break, then the slice its
    offsets name; any other chunk is exactly that slice."""
    text = document.text
    assert 0 <= chunk.start < chunk.end <= len(text)
    body = text[chunk.start : chunk.end]
    assert body.strip(), "no empty or whitespace-only chunk"
    table = continued_table(document, chunk.start)
    expected = body if table is None else table.header + "\n" + body
    assert chunk.content == expected, f"chunk {chunk.index} at {chunk.start}:{chunk.end}"


def assert_size(document: GeneratedDocument, chunk: TextChunk, config: ChunkerConfig) -> None:
    """Only a fenced code block, or a table header with a single row, may exceed the size."""
    if len(chunk.content) <= config.chunk_size:
        return
    if (chunk.start, chunk.end) in document.fences:
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


def assert_fences_whole(
    document: GeneratedDocument, chunks: Sequence[TextChunk], lo: int, hi: int
) -> None:
    """Every fence of the region lies whole in a chunk, and no chunk starts or ends inside it."""
    for start, end in document.fences:
        if end <= lo or hi <= start:
            continue
        assert any(c.start <= start and end <= c.end for c in chunks), f"fence {start}:{end}"
        for chunk in chunks:
            assert not start < chunk.start < end, f"a chunk starts inside fence {start}:{end}"
            assert not start < chunk.end < end, f"a chunk ends inside fence {start}:{end}"


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
    assert_fences_whole(document, chunks, lo, hi)
    assert_tables_cut_between_rows(document, chunks, config, lo, hi)
