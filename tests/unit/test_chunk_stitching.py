"""The round's Markdown is rebuilt from its text chunks as the real chunker cut them."""

from __future__ import annotations

import pytest

from workers.chunker import ChunkerConfig, split_markdown
from workers.pipeline.chunks.stitching import TextSlice, rebuild_markdown
from workers.pipeline.markdown.tables import tables_in

HEADER = "| id | name | amount |\n| --- | --- | --- |\n"
ROWS = [f"| {n} | item {n} | {n * 37 % 1000} |" for n in range(120)]
SHEETS = (
    "## Sheet: Stock\n\n"
    + HEADER
    + "\n".join(ROWS)
    + "\n\nA note between the sheets, long enough to be a block of its own.\n\n"
    + "## Sheet: Small\n\n| k | v |\n| --- | --- |\n| x | 1 |\n| y | 2 |"
)


def _slices(text: str, config: ChunkerConfig) -> list[TextSlice]:
    return [TextSlice(c.index, c.content, c.start, c.end) for c in split_markdown(text, config)]


@pytest.mark.parametrize(("size", "overlap"), [(2000, 0), (200, 0), (200, 50), (90, 30)])
def test_the_chunks_give_back_the_text_they_were_cut_from(size: int, overlap: int) -> None:
    slices = _slices(SHEETS, ChunkerConfig(chunk_size=size, chunk_overlap=overlap))
    assert rebuild_markdown(slices) == SHEETS


def test_a_table_cut_into_many_chunks_has_each_row_once() -> None:
    slices = _slices(SHEETS, ChunkerConfig(chunk_size=120, chunk_overlap=40))
    assert sum(s.content.count(HEADER) for s in slices) > 5, "the header must have been repeated"
    stock, small = tables_in(rebuild_markdown(slices))
    assert (stock.title, len(stock.rows)) == ("Stock", len(ROWS))
    assert stock.rows[0] == ("0", "item 0", "0") and stock.rows[-1][0] == "119"
    assert (small.title, small.rows) == ("Small", (("x", "1"), ("y", "2")))


def test_the_order_of_the_slices_does_not_matter() -> None:
    slices = _slices(SHEETS, ChunkerConfig(chunk_size=150, chunk_overlap=20))
    assert rebuild_markdown(list(reversed(slices))) == SHEETS


def test_chunks_without_ranges_are_joined_in_chunk_order() -> None:
    slices = [TextSlice(1, "| 2 |", 0, 0), TextSlice(0, "| a |\n|---|\n| 1 |", 0, 0)]
    assert rebuild_markdown(slices) == "| a |\n|---|\n| 1 |\n\n| 2 |"


def test_no_chunks_no_text() -> None:
    assert rebuild_markdown([]) == ""


def _without_ranges(slices: list[TextSlice]) -> list[TextSlice]:
    return [TextSlice(s.index, s.content, 0, 0) for s in slices]


@pytest.mark.parametrize("size", [2000, 200, 120])
def test_without_ranges_a_cut_table_is_joined_back_into_one(size: int) -> None:
    slices = _slices(SHEETS, ChunkerConfig(chunk_size=size, chunk_overlap=0))
    rebuilt = rebuild_markdown(_without_ranges(slices))
    assert rebuilt == SHEETS
    stock, small = tables_in(rebuilt)
    assert (stock.title, len(stock.rows)) == ("Stock", len(ROWS))
    assert (small.title, len(small.rows)) == ("Small", 2)


def test_without_ranges_the_repeated_header_is_dropped_even_with_overlap() -> None:
    slices = _slices(SHEETS, ChunkerConfig(chunk_size=120, chunk_overlap=40))
    assert sum(s.content.count(HEADER) for s in slices) > 5, "the header must have been repeated"
    rebuilt = rebuild_markdown(_without_ranges(slices))
    assert rebuilt.count(HEADER) == 1
    stock = tables_in(rebuilt)[0]
    assert [row[0] for row in stock.rows] == [str(n) for n in range(len(ROWS))]


def test_without_ranges_only_the_same_header_continues_a_table() -> None:
    other = "| k | v |\n| --- | --- |\n| x | 1 |"
    slices = [
        TextSlice(0, HEADER + ROWS[0], 0, 0),
        TextSlice(1, other, 0, 0),  # another table: stays apart
        TextSlice(2, "Some text.", 0, 0),
        TextSlice(3, HEADER + ROWS[1], 0, 0),  # a table after text: not a continuation
        TextSlice(4, HEADER + ROWS[2], 0, 0),  # continues the one before
    ]
    assert rebuild_markdown(slices) == (
        f"{HEADER}{ROWS[0]}\n\n{other}\n\nSome text.\n\n{HEADER}{ROWS[1]}\n{ROWS[2]}"
    )


CODE = "\n".join(f"value_{n} = compute({n})  # line {n} of the code" for n in range(40))
WITH_FENCES = (
    "## Code\n\n"
    + HEADER
    + "\n".join(ROWS[:12])
    + "\n```python\n"
    + CODE
    + "\n```\n\nBetween the fences.\n\n~~~~\n"
    + CODE
    + "\n~~~~\n\n```\n"
    + "x" * 700
    + "\n```\n\nThe end."
)


@pytest.mark.parametrize(("size", "overlap"), [(2000, 0), (300, 0), (300, 60), (120, 30), (64, 0)])
def test_a_cut_fence_is_given_back_without_the_lines_its_pieces_added(
    size: int, overlap: int
) -> None:
    slices = _slices(WITH_FENCES, ChunkerConfig(chunk_size=size, chunk_overlap=overlap))
    if size < 2000:
        assert sum(s.content.startswith("```python\n") for s in slices) > 1, "a fence was cut"
    assert rebuild_markdown(slices) == WITH_FENCES
    assert rebuild_markdown(list(reversed(slices))) == WITH_FENCES


def test_a_chunk_continuing_a_table_and_ending_inside_a_fence_is_given_back() -> None:
    """Its content has both a repeated header in front and a closing line after it: the
    fence's first piece is short (the line after it does not fit), so it joins the table's
    last rows."""
    long_line = " ".join(f"word{n}" for n in range(60))
    text = HEADER + "\n".join(ROWS[:8]) + f"\n```text\nshort\n{long_line}\n```\n\nAfter."
    slices = _slices(text, ChunkerConfig(chunk_size=150, chunk_overlap=0))
    both = [s for s in slices if s.content.startswith(HEADER) and s.content.endswith("\n```")]
    assert both and both[0].content.endswith("```text\nshort\n```")
    assert rebuild_markdown(slices) == text


def test_without_ranges_a_fence_cut_between_lines_is_joined_back_into_one() -> None:
    text = f"Before.\n\n```python\n{CODE}\n```\n\nAfter."
    slices = _slices(text, ChunkerConfig(chunk_size=200, chunk_overlap=0))
    assert len(slices) > 3
    assert rebuild_markdown(_without_ranges(slices)) == text
