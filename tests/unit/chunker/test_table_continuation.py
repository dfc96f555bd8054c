"""A table bigger than a chunk is cut between rows, and every chunk continuing it starts with
the table's header and delimiter rows again."""

from __future__ import annotations

import random

import pytest

from tests.unit.chunker.chunk_rules import fence_at, fence_lines
from tests.unit.chunker.generated_markdown import generate_document
from workers.chunker import ChunkerConfig, TextChunk, split_markdown, split_parent_child

HEADER = "| id | name | amount |\n|---|---|---|\n"
ROWS = [f"| {n} | item number {n} | {n * 37 % 1000} |" for n in range(200)]
TABLE = HEADER + "\n".join(ROWS)


def _row_lines(chunk: TextChunk) -> list[str]:
    return [line for line in chunk.content.split("\n") if line in ROWS]


@pytest.mark.parametrize("overlap", [0, 30])
def test_every_chunk_with_rows_starts_with_the_header_and_rows_appear_once_in_order(
    overlap: int,
) -> None:
    text = f"# Inventory\n\nThe stock as of today.\n\n{TABLE}\n\nEnd of the inventory."
    config = ChunkerConfig(chunk_size=200, chunk_overlap=overlap)
    chunks = split_markdown(text, config)
    with_rows = [chunk for chunk in chunks if _row_lines(chunk)]
    assert len(with_rows) > 10, "the table must have been cut"
    for chunk in with_rows:
        table_part = chunk.content[chunk.content.index("| id |") :]
        assert table_part.startswith(HEADER), chunk.content
        assert len(chunk.content) <= config.chunk_size
    seen = [row for chunk in chunks for row in _row_lines(chunk)]
    assert seen == ROWS, "every row exactly once, in order"
    assert chunks[0].content.startswith("# Inventory")
    assert chunks[-1].content.endswith("End of the inventory.")


def test_continuation_chunks_are_the_header_plus_the_slice_their_offsets_name() -> None:
    chunks = split_markdown(TABLE, ChunkerConfig(chunk_size=150, chunk_overlap=20))
    assert chunks[0].content == TABLE[chunks[0].start : chunks[0].end]
    assert chunks[0].start == 0
    for chunk in chunks[1:]:
        assert chunk.content == HEADER + TABLE[chunk.start : chunk.end]
        assert TABLE[chunk.start : chunk.end].startswith("| ")  # a whole row, never half
    covered = "".join(TABLE[c.start : c.end] + "\n" for c in chunks)
    assert covered == TABLE + "\n", "the offsets tile the table row by row"


def test_a_table_that_fits_stays_one_chunk_without_repeated_header() -> None:
    small = HEADER + "\n".join(ROWS[:3])
    text = f"Intro text here.\n\n{small}\n\nOutro."
    chunks = split_markdown(text, ChunkerConfig(chunk_size=120, chunk_overlap=0))
    assert [c.content for c in chunks].count(small) == 1
    assert sum(c.content.count(HEADER) for c in chunks) == 1


def test_a_row_bigger_than_a_chunk_stands_alone_with_the_header() -> None:
    wide = "| 999 | " + "very long cell " * 20 + "| 1 |"
    text = HEADER + "\n".join([*ROWS[:5], wide, *ROWS[5:10]])
    chunks = split_markdown(text, ChunkerConfig(chunk_size=120, chunk_overlap=0))
    holding = [c for c in chunks if wide in c.content]
    assert len(holding) == 1
    assert holding[0].content == HEADER + wide
    oversized = [c for c in chunks if len(c.content) > 120]
    assert oversized == holding


def test_a_table_without_a_delimiter_row_is_cut_between_rows_without_a_header() -> None:
    rows = [f"| cell {n} | value {n} |" for n in range(40)]
    text = "\n".join(rows)
    chunks = split_markdown(text, ChunkerConfig(chunk_size=100, chunk_overlap=0))
    assert len(chunks) > 1
    assert [line for c in chunks for line in c.content.split("\n")] == rows
    assert all(c.content == text[c.start : c.end] for c in chunks)


def test_children_of_a_parent_continuing_a_table_repeat_its_header() -> None:
    text = f"# Inventory\n\n{TABLE}"
    parents, children = split_parent_child(
        text, ChunkerConfig(chunk_size=600, chunk_overlap=0), ChunkerConfig(160, 0)
    )
    assert len(parents) > 5
    for parent in parents[1:]:
        assert parent.content.startswith(HEADER)
    child_rows = [line for c in children for line in c.content.split("\n") if line in ROWS]
    assert child_rows == ROWS
    for child in children:
        if any(line in ROWS for line in child.content.split("\n")):
            assert child.content[child.content.index("| id |") :].startswith(HEADER)
        assert len(child.content) <= 160


def _header_of_table_at(text: str, offset: int) -> str:
    """The header rows of the table whose body holds ``offset`` (test-side oracle)."""
    block_start = text.rfind("\n\n", 0, offset) + 2 if "\n\n" in text[:offset] else 0
    lines = text[block_start:].split("\n")
    return lines[0] + "\n" + lines[1] + "\n"


@pytest.mark.parametrize("seed", range(60))
def test_generated_documents_keep_every_table_row_once_under_its_header(seed: int) -> None:
    document = generate_document(seed)
    text = document.text
    rng = random.Random(seed)
    size = rng.choice([40, 64, 100, 200])
    config = ChunkerConfig(chunk_size=size, chunk_overlap=rng.choice([0, size // 4]))
    chunks = split_markdown(text, config)
    for chunk in chunks:
        body = text[chunk.start : chunk.end]
        # A chunk ending inside a cut code fence closes it.
        ends_in = fence_at(document, chunk.end)
        body += "" if ends_in is None else fence_lines(document, ends_in)[1]
        starts_in = fence_at(document, chunk.start)
        if starts_in is not None:
            assert chunk.content == fence_lines(document, starts_in)[0] + body
        elif chunk.content != body:
            header = _header_of_table_at(text, chunk.start)
            assert chunk.content == header + body
        if len(chunk.content) > size:
            # Only a header with a single row may be too big to cut.
            lines = chunk.content.split("\n")
            rows = [line for line in lines if not line.startswith("|-")]
            assert all(line.startswith("|") for line in lines) and len(rows) <= 2
    for start, end in document.atomic:
        if not text.startswith("|", start) or end - start <= size:
            continue
        # A cut table: its rows are tiled by the chunks' ranges, none repeated.
        rows = text[start:end].split("\n")[2:]
        seen = [
            line
            for chunk in chunks
            if start <= chunk.start < end or start < chunk.end <= end
            for line in text[max(chunk.start, start) : min(chunk.end, end)].split("\n")
            if line in rows
        ]
        assert sorted(seen) == sorted(rows)
