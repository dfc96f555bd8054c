"""Invariants of split_markdown on many random documents (fixed seeds, so failures repeat)."""

from __future__ import annotations

import itertools
import random

import pytest

from tests.unit.chunker.chunk_rules import (
    assert_content,
    assert_continuations_have_no_overlap,
    assert_fences_whole_or_cut_between_lines,
    assert_size,
    assert_tables_cut_between_rows,
    continued_table,
    fence_at,
)
from tests.unit.chunker.generated_markdown import GeneratedDocument, generate_document
from workers.chunker import ChunkerConfig, TextChunk, split_markdown

SEEDS = range(150)


def _config(seed: int) -> ChunkerConfig:
    rng = random.Random(seed * 7919)
    size = rng.choice([40, 64, 100, 200, 512, 900])
    overlap = rng.choice([0, 0, size // 10, size // 4, size - 1])
    return ChunkerConfig(chunk_size=size, chunk_overlap=overlap)


def _split(seed: int) -> tuple[GeneratedDocument, ChunkerConfig, list[TextChunk]]:
    document = generate_document(seed)
    config = _config(seed)
    return document, config, split_markdown(document.text, config)


@pytest.mark.parametrize("seed", SEEDS)
def test_content_is_the_slice_or_the_repeated_table_header_and_the_slice(seed: int) -> None:
    document, _, chunks = _split(seed)
    assert chunks, "a non-empty document yields chunks"
    for position, chunk in enumerate(chunks):
        assert chunk.index == position
        assert_content(document, chunk)


@pytest.mark.parametrize("seed", SEEDS)
def test_chunks_advance_and_cover_every_visible_character(seed: int) -> None:
    document, config, chunks = _split(seed)
    for previous, chunk in itertools.pairwise(chunks):
        assert chunk.start > previous.start and chunk.end > previous.end
        if config.chunk_overlap == 0:
            assert chunk.start >= previous.end
        else:
            assert chunk.start >= previous.end - config.chunk_overlap
    covered = [False] * len(document.text)
    for chunk in chunks:
        covered[chunk.start : chunk.end] = [True] * (chunk.end - chunk.start)
    lost = [i for i, char in enumerate(document.text) if not char.isspace() and not covered[i]]
    assert lost == []


@pytest.mark.parametrize("seed", SEEDS)
def test_a_chunk_continuing_a_table_gets_no_overlap(seed: int) -> None:
    document, _, chunks = _split(seed)
    assert_continuations_have_no_overlap(document, chunks)


@pytest.mark.parametrize("seed", SEEDS)
def test_fences_are_cut_only_when_too_big_and_then_between_lines(seed: int) -> None:
    document, config, chunks = _split(seed)
    assert_fences_whole_or_cut_between_lines(document, chunks, config, 0, len(document.text))


@pytest.mark.parametrize("seed", SEEDS)
def test_tables_are_cut_only_between_rows_and_each_row_is_in_one_chunk(seed: int) -> None:
    document, config, chunks = _split(seed)
    assert_tables_cut_between_rows(document, chunks, config, 0, len(document.text))


@pytest.mark.parametrize("seed", SEEDS)
def test_size_is_exceeded_only_by_a_table_header_with_one_row(seed: int) -> None:
    document, config, chunks = _split(seed)
    for chunk in chunks:
        assert_size(document, chunk, config)


def test_the_seeds_cut_tables_and_exceed_the_size() -> None:
    """The rules above are not vacuous: the generated documents do cut tables and fences, and
    hit the oversize exception."""
    continuations = fence_continuations = oversized_rows = 0
    for seed in SEEDS:
        document, config, chunks = _split(seed)
        for chunk in chunks:
            continuations += continued_table(document, chunk.start) is not None
            fence_continuations += fence_at(document, chunk.start) is not None
            oversized_rows += len(chunk.content) > config.chunk_size
    assert continuations > 100
    assert fence_continuations > 50
    assert oversized_rows > 10


@pytest.mark.parametrize("seed", SEEDS)
def test_chunks_start_at_word_boundaries(seed: int) -> None:
    document, config, chunks = _split(seed)
    text = document.text
    for chunk in chunks:
        if chunk.start == 0:
            continue
        before = text[: chunk.start]
        assert before[-1].isspace() or any(before.endswith(s) for s in config.separators), (
            f"chunk {chunk.index} starts mid-word: {text[chunk.start - 10 : chunk.start + 10]!r}"
        )


@pytest.mark.parametrize("seed", SEEDS)
def test_context_header_is_the_breadcrumbs_at_the_chunk_start(seed: int) -> None:
    document, _, chunks = _split(seed)
    for chunk in chunks:
        assert chunk.context_header == document.expected_breadcrumbs(chunk.start)
