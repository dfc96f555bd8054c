"""Hand-written cases for split_markdown: structure, overlap, breadcrumbs, offsets."""

# Non-Latin letters in strings are the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

import itertools

import pytest

from workers.chunker import ChunkerConfig, split_markdown

PROSE = " ".join(
    f"Sentence number {n} talks about rivers, stones and quiet gardens." for n in range(60)
)


def test_config_is_validated() -> None:
    with pytest.raises(ValueError, match="chunk_size"):
        ChunkerConfig(chunk_size=0)
    with pytest.raises(ValueError, match="chunk_overlap"):
        ChunkerConfig(chunk_size=10, chunk_overlap=10)
    with pytest.raises(ValueError, match="chunk_overlap"):
        ChunkerConfig(chunk_size=10, chunk_overlap=-1)
    with pytest.raises(ValueError, match="separators"):
        ChunkerConfig(separators=("\n", ""))
    assert ChunkerConfig(separators=["\n", " "]).separators == ("\n", " ")  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t\n"])
def test_empty_or_blank_text_has_no_chunks(text: str) -> None:
    assert split_markdown(text, ChunkerConfig()) == []


def test_prose_fills_chunks_up_to_the_size() -> None:
    config = ChunkerConfig(chunk_size=200, chunk_overlap=0)
    chunks = split_markdown(PROSE, config)
    lengths = [len(c.content) for c in chunks]
    assert max(lengths) <= 200
    # Greedy packing: every chunk but the last is well filled.
    assert min(lengths[:-1]) > 150
    assert "".join(c.content + " " for c in chunks).strip() == PROSE
    for chunk in chunks[1:]:
        assert chunk.content.startswith("Sentence")


def test_overlap_repeats_the_end_of_the_previous_chunk() -> None:
    config = ChunkerConfig(chunk_size=200, chunk_overlap=50)
    chunks = split_markdown(PROSE, config)
    assert len(chunks) > 3
    for previous, chunk in itertools.pairwise(chunks):
        assert previous.end - 50 <= chunk.start < previous.end
        shared = PROSE[chunk.start : previous.end]
        assert previous.content.endswith(shared) and chunk.content.startswith(shared)
        assert len(chunk.content) <= 200
        assert PROSE[chunk.start - 1] == " ", "overlap starts at a word"


def test_zero_overlap_gives_disjoint_chunks() -> None:
    chunks = split_markdown(PROSE, ChunkerConfig(chunk_size=120, chunk_overlap=0))
    for previous, chunk in itertools.pairwise(chunks):
        assert chunk.start > previous.end


def test_oversized_fence_is_cut_between_lines_and_oversized_table_between_rows() -> None:
    header = "| name | value |\n|---|---|"
    rows = [f"| row{n} | {n * 7} |" for n in range(30)]
    table = "\n".join([header, *rows])
    fence = "```python\n" + "\n\n".join(f"print({n})  # step {n}" for n in range(30)) + "\n```"
    text = f"# Data\n\nBefore the table.\n\n{table}\n\nBetween.\n\n{fence}\n\nAfter the code."
    chunks = split_markdown(text, ChunkerConfig(chunk_size=80, chunk_overlap=20))
    assert all(len(c.content) <= 80 for c in chunks)
    code = [c for c in chunks if text.index(fence) <= c.start < text.index(fence) + len(fence)]
    assert len(code) > 3 and all(c.content.startswith("```python\n") for c in code)
    assert all(c.content.endswith("\n```") for c in code)
    steps = [line for c in code for line in c.content.split("\n") if line.startswith("print(")]
    assert steps == [f"print({n})  # step {n}" for n in range(30)], "every line once, in order"
    with_rows = [c for c in chunks if set(c.content.split("\n")) & set(rows)]
    assert len(with_rows) > 3
    first, *continuations = with_rows
    assert first.start == text.index(table)
    assert first.content == text[first.start : first.end]
    for chunk in continuations:
        assert chunk.content == header + "\n" + text[chunk.start : chunk.end]
        assert chunk.content.split("\n")[2] in rows, "a continuation starts at a whole row"
    seen = [line for c in chunks for line in c.content.split("\n") if line in rows]
    assert seen == rows, "every row once, in order"


def test_heading_like_lines_in_code_are_not_headings() -> None:
    text = "# Real\n\n```\n# not a heading\n```\n\nText after the code block."
    chunks = split_markdown(text, ChunkerConfig(chunk_size=30, chunk_overlap=0))
    assert [c.context_header for c in chunks] == ["# Real"] * len(chunks)
    assert "```\n# not a heading\n```" in [c.content for c in chunks]


def test_breadcrumbs_follow_heading_levels() -> None:
    text = (
        "Preamble text.\n\n# A\n\nText of A.\n\n## B\n\nText of B.\n\n### C\n\nText of C.\n\n"
        "## D ##\n\nText of D.\n\n# E\n\nText of E."
    )
    chunks = split_markdown(text, ChunkerConfig(chunk_size=20, chunk_overlap=0))
    by_text = {c.content.split("\n")[-1]: c.context_header for c in chunks}
    assert by_text["Preamble text."] == ""
    assert by_text["Text of A."] == "# A"
    assert by_text["Text of B."] == "# A > ## B"
    assert by_text["Text of C."] == "# A > ## B > ### C"
    assert by_text["Text of D."] == "# A > ## D"
    assert by_text["Text of E."] == "# E"


def test_a_heading_starts_its_chunk_instead_of_ending_the_previous_one() -> None:
    text = "Intro words here.\n\n## Section\n\n" + "Body words of the section. " * 3
    chunks = split_markdown(text, ChunkerConfig(chunk_size=40, chunk_overlap=10))
    assert chunks[0].content == "Intro words here."
    assert chunks[1].content.startswith("## Section")
    assert chunks[1].context_header == "## Section"
    # No overlap is pulled in front of a heading.
    assert chunks[1].start == text.index("## Section")


def test_lists_are_split_between_items() -> None:
    items = [f"- item {n} with a few words" for n in range(20)]
    text = "\n".join(items)
    chunks = split_markdown(text, ChunkerConfig(chunk_size=90, chunk_overlap=0))
    assert len(chunks) > 1
    for chunk in chunks:
        assert chunk.content.startswith("- item")
        assert all(line in items for line in chunk.content.split("\n"))


@pytest.mark.parametrize("overlap", [0, 7])
def test_offsets_are_code_points_for_cyrillic_chinese_and_emoji(overlap: int) -> None:
    text = (
        "# Заголовок 📘\n\nПервый абзац на русском языке с буквой ё и эмодзи 👨‍👩‍👧 внутри.\n\n"
        "## 中文部分\n\n这是第一句话内容。这是第二句话内容很长。这是第三句很长很长的句子啊。\n\n"
        "Второй абзац 🎉🎉 заканчивается здесь."
    )
    chunks = split_markdown(text, ChunkerConfig(chunk_size=30, chunk_overlap=overlap))
    for chunk in chunks:
        assert chunk.content == text[chunk.start : chunk.end]
        assert len(chunk.content) <= 30
    by_start = {c.start: c for c in chunks}
    heading = by_start[text.index("## 中文部分")]
    assert heading.context_header == "# Заголовок 📘 > ## 中文部分"
    # The Chinese paragraph does not fit: it is cut right after a "。".
    after_full_stop = [c for c in chunks if text[c.start - 1] == "。"]
    assert after_full_stop
    assert after_full_stop[0].context_header == "# Заголовок 📘 > ## 中文部分"


def test_long_word_without_separators_is_cut_hard() -> None:
    text = "x" * 95
    chunks = split_markdown(text, ChunkerConfig(chunk_size=40, chunk_overlap=0))
    assert [(c.start, c.end) for c in chunks] == [(0, 40), (40, 80), (80, 95)]


def test_custom_separators_are_used_in_order() -> None:
    text = "one;two;three;four;five;six"
    chunks = split_markdown(text, ChunkerConfig(chunk_size=10, chunk_overlap=0, separators=(";",)))
    assert [c.content for c in chunks] == ["one;two;", "three;", "four;five;", "six"]
