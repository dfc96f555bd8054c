"""A fenced code block bigger than a chunk is cut between lines, and every chunk holding a
piece of it is a fence of its own: the opening line (marker and language) repeated in front
when the chunk starts inside the fence, a closing line after it when it ends inside."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from workers.chunker import ChunkerConfig, TextChunk, split_markdown, split_parent_child

CODE = [f"result_{n} = compute(values[{n}], factor={n * 3})  # step {n}" for n in range(60)]


def _fence(opening: str, closing: str, lines: list[str] = CODE) -> str:
    return "\n".join([opening, *lines, closing])


def _text(fence: str) -> str:
    return f"# Code\n\nSome prose before the code.\n\n{fence}\n\nSome prose after the code."


def _pieces(text: str, fence: str, chunks: Sequence[TextChunk]) -> list[TextChunk]:
    start = text.index(fence)
    return [c for c in chunks if c.start < start + len(fence) and start < c.end]


def _expected(text: str, fence: str, chunk: TextChunk, opening: str, closing: str) -> str:
    start, end = text.index(fence), text.index(fence) + len(fence)
    front = opening + "\n" if start < chunk.start < end else ""
    back = "\n" + closing if start < chunk.end < end else ""
    return front + text[chunk.start : chunk.end] + back


@pytest.mark.parametrize(
    ("opening", "closing"),
    [("```python", "```"), ("~~~", "~~~"), ("````text", "````"), ("~~~~ sql", "~~~~")],
)
@pytest.mark.parametrize(("size", "overlap"), [(300, 0), (300, 60), (120, 30)])
def test_each_piece_is_a_fence_in_the_language_with_the_same_marker(
    opening: str, closing: str, size: int, overlap: int
) -> None:
    fence = _fence(opening, closing)
    text = _text(fence)
    chunks = split_markdown(text, ChunkerConfig(chunk_size=size, chunk_overlap=overlap))
    pieces = _pieces(text, fence, chunks)
    assert len(pieces) > 3
    for chunk in chunks:
        assert len(chunk.content) <= size
    for piece in pieces:
        assert piece.content == _expected(text, fence, piece, opening, closing)
        code = piece.content[piece.content.index(opening) :]
        assert code.startswith(opening + "\n")
    for piece in pieces[:-1]:
        assert piece.content.endswith("\n" + closing)
    # Every code line is in exactly one piece, in order, cut at a line break.
    lines = [line for p in pieces for line in p.content.split("\n") if line in CODE]
    assert lines == CODE
    for previous, piece in itertools.pairwise(pieces):
        assert text[previous.end : piece.start] == "\n", "no overlap into a fence piece"


def test_a_fence_holding_a_shorter_fence_is_closed_with_its_own_longer_marker() -> None:
    inner = ["```js", *[f"console.log({n}, 'inner code line {n}');" for n in range(20)], "```"]
    fence = _fence("````markdown", "````", [*inner, *CODE[:20]])
    text = _text(fence)
    chunks = split_markdown(text, ChunkerConfig(chunk_size=200, chunk_overlap=0))
    pieces = _pieces(text, fence, chunks)
    assert len(pieces) > 3
    for piece in pieces:
        assert piece.content == _expected(text, fence, piece, "````markdown", "````")
        assert len(piece.content) <= 200
    # The inner ``` lines never end the outer fence: the pieces run to its real end.
    assert pieces[-1].end >= text.index(fence) + len(fence)


def test_a_fence_that_fits_stays_whole() -> None:
    fence = _fence("```python", "```", CODE[:3])
    text = _text(fence)
    chunks = split_markdown(text, ChunkerConfig(chunk_size=len(fence), chunk_overlap=0))
    assert fence in [c.content for c in chunks]


def test_a_line_too_long_is_cut_after_a_space_and_the_rest_follows_without_a_gap() -> None:
    long_line = " ".join(f"word{n}" for n in range(80))
    fence = _fence("```text", "```", ["short line", long_line, "last line"])
    text = _text(fence)
    chunks = split_markdown(text, ChunkerConfig(chunk_size=100, chunk_overlap=0))
    pieces = _pieces(text, fence, chunks)
    assert all(len(c.content) <= 100 for c in chunks)
    inside = [
        (previous, piece)
        for previous, piece in itertools.pairwise(pieces)
        if previous.end == piece.start
    ]
    assert len(inside) > 3, "the long line is cut inside itself"
    for previous, _ in inside:
        assert text[previous.end - 1] == " ", "cut right after a space"
    for piece in pieces:
        assert piece.content == _expected(text, fence, piece, "```text", "```")


def test_a_line_without_spaces_is_cut_at_the_size() -> None:
    blob = "QUJD" * 100
    fence = _fence("```", "```", [blob])
    chunks = split_markdown(fence, ChunkerConfig(chunk_size=64, chunk_overlap=0))
    assert len(chunks) > 5
    assert all(len(c.content) <= 64 for c in chunks)
    assert max(len(c.content) for c in chunks) == 64, "filled up to the size"
    for chunk in chunks:
        front = "```\n" if chunk.start > 0 else ""
        back = "\n```" if chunk.end < len(fence) else ""
        assert chunk.content == front + fence[chunk.start : chunk.end] + back
    assert "".join(fence[c.start : c.end] for c in chunks) == fence


def test_a_size_too_small_for_the_fence_lines_keeps_the_fence_whole() -> None:
    fence = _fence("```python", "```", CODE[:2])
    chunks = split_markdown(fence, ChunkerConfig(chunk_size=14, chunk_overlap=0))
    assert [c.content for c in chunks] == [fence]


def test_children_of_a_parent_holding_a_fence_piece_are_fences_too() -> None:
    fence = _fence("~~~python", "~~~")
    text = _text(fence)
    parents, children = split_parent_child(
        text, ChunkerConfig(chunk_size=600, chunk_overlap=50), ChunkerConfig(chunk_size=150)
    )
    assert len(_pieces(text, fence, parents)) > 2
    pieces = _pieces(text, fence, children)
    assert len(pieces) > len(_pieces(text, fence, parents))
    for piece in pieces:
        assert len(piece.content) <= 150
        assert piece.content == _expected(text, fence, piece, "~~~python", "~~~")
    lines = [line for p in pieces for line in p.content.split("\n") if line in CODE]
    assert lines == CODE
