"""Invariants of split_markdown on many random documents (fixed seeds, so failures repeat)."""

from __future__ import annotations

import itertools
import random

import pytest

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
def test_content_is_exactly_the_offsets_slice(seed: int) -> None:
    document, _, chunks = _split(seed)
    assert chunks, "a non-empty document yields chunks"
    for position, chunk in enumerate(chunks):
        assert chunk.index == position
        assert 0 <= chunk.start < chunk.end <= len(document.text)
        assert chunk.content == document.text[chunk.start : chunk.end]
        assert chunk.content.strip(), "no empty or whitespace-only chunk"


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
def test_tables_and_fences_are_never_split(seed: int) -> None:
    document, _, chunks = _split(seed)
    for start, end in document.atomic:
        assert any(c.start <= start and end <= c.end for c in chunks), "kept whole somewhere"
        for chunk in chunks:
            assert not start < chunk.start < end, f"a chunk starts inside {start}:{end}"
            assert not start < chunk.end < end, f"a chunk ends inside {start}:{end}"


@pytest.mark.parametrize("seed", SEEDS)
def test_size_is_exceeded_only_by_a_single_oversized_table_or_fence(seed: int) -> None:
    document, config, chunks = _split(seed)
    for chunk in chunks:
        if len(chunk.content) > config.chunk_size:
            assert (chunk.start, chunk.end) in document.atomic


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
