"""Fenced json cut along its structure, each chunk under the size with its JSON path as the
breadcrumb (issue 11, item 7)."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from workers.chunker import ChunkerConfig, TextChunk, split_markdown, split_parent_child
from workers.chunker.json_chunks import MAX_DEPTH

PATH = re.compile(r"^\$(?:\.[A-Za-z_]\w*|\[\d+(?::\d+)?\]|\[\"[^\"]*\"\])*$")


def orders(count: int) -> dict[str, Any]:
    return {
        "shop": {"name": "Pens & Ink", "since": 1999},
        "orders": [
            {
                "id": n,
                "customer": {"name": f"Customer {n}", "city": "Oslo", "vip": n % 2 == 0},
                "items": [
                    {"sku": f"SKU-{n}-{i}", "qty": i + 1, "price": 2.5 * i} for i in range(4)
                ],
            }
            for n in range(count)
        ],
    }


def fenced(document: Any, *, indent: int | None = 2) -> str:
    """What the docreader writes for a JSON file (pretty, or as written by the simple engine)."""
    separators = None if indent else (",", ":")
    return "```json\n" + json.dumps(document, indent=indent, separators=separators) + "\n```"


def assert_covers(text: str, chunks: list[TextChunk]) -> None:
    """Every character outside the chunks is whitespace or a comma between members."""
    covered = bytearray(len(text))
    for chunk in chunks:
        assert chunk.content == text[chunk.start : chunk.end]
        covered[chunk.start : chunk.end] = b"\x01" * (chunk.end - chunk.start)
    left = "".join(char for char, seen in zip(text, covered, strict=True) if not seen)
    assert not left.replace(",", "").strip()


def test_a_big_json_file_becomes_chunks_under_the_size_with_their_paths() -> None:
    text = fenced(orders(12))
    config = ChunkerConfig(chunk_size=400, chunk_overlap=50)
    assert len(text) > 10 * config.chunk_size
    chunks = split_markdown(text, config)
    assert len(chunks) >= 10
    assert all(len(c.content) <= config.chunk_size for c in chunks)
    assert all(PATH.match(c.context_header) for c in chunks), [c.context_header for c in chunks]
    assert_covers(text, chunks)
    # No overlap: a chunk's text lies under its own path only.
    assert all(b.start >= a.end for a, b in itertools.pairwise(chunks))
    assert chunks[0].content.startswith("```json\n{")
    assert chunks[-1].content.endswith("}\n```")
    # Each order fits a chunk or two, and says which order it is.
    third = [c for c in chunks if c.context_header.startswith("$.orders[3]")]
    assert third and all('"id": 3' in c.content or "SKU-3-" in c.content for c in third)
    headers = {c.context_header for c in chunks}
    assert any(h.startswith("$.orders[") for h in headers)


def test_a_member_too_big_alone_is_cut_inside_and_named_deeper() -> None:
    notes = [f"note {i}" for i in range(60)]
    text = fenced({"orders": [{"customer": {"name": "Ann", "notes": notes}}]})
    chunks = split_markdown(text, ChunkerConfig(chunk_size=200, chunk_overlap=0))
    assert all(len(c.content) <= 200 for c in chunks)
    notes_path = "$.orders[0].customer.notes"
    # The first run of notes shares its chunk with the key "notes": [ that opens them.
    assert [c.context_header for c in chunks] == [
        "$.orders[0].customer.name",
        f"{notes_path}[0:9]",
        *(f"{notes_path}[{lo}:{lo + 10}]" for lo in range(9, 50, 10)),
        f"{notes_path}[59]",
    ]
    assert chunks[1].content.startswith('"notes": [')
    assert_covers(text, chunks)


def test_minified_json_is_cut_the_same_way() -> None:
    text = fenced(orders(8), indent=None)
    assert text.count("\n") == 2
    chunks = split_markdown(text, ChunkerConfig(chunk_size=300, chunk_overlap=0))
    assert len(chunks) > 5
    assert all(len(c.content) <= 300 for c in chunks)
    assert all(PATH.match(c.context_header) for c in chunks)
    assert_covers(text, chunks)


def test_a_string_too_big_alone_is_cut_as_text_under_its_path() -> None:
    story = " ".join(f"word{i}" for i in range(400))
    text = fenced({"id": 1, "story": story})
    chunks = split_markdown(text, ChunkerConfig(chunk_size=250, chunk_overlap=0))
    assert all(len(c.content) <= 250 for c in chunks)
    # The first chunk also holds "id", so it is named by the object both lie in.
    assert chunks[0].context_header == "$"
    assert {c.context_header for c in chunks[1:]} == {"$.story"}
    assert len(chunks) >= len(story) // 250
    assert "".join(c.content for c in chunks).count("word") == 400


def test_keys_that_are_not_identifiers_are_quoted_in_the_path() -> None:
    text = fenced({"first name": "x" * 150, "ok": "y" * 150})
    headers = [c.context_header for c in split_markdown(text, ChunkerConfig(200, 0))]
    assert headers == ['$["first name"]', "$.ok"]


def test_the_path_follows_the_heading_breadcrumbs() -> None:
    text = "# Export\n\n## Orders\n\n" + fenced(orders(3))
    first, *rest = split_markdown(text, ChunkerConfig(chunk_size=300, chunk_overlap=0))
    # A chunk starting with a heading carries that heading (it starts with "# Export").
    assert first.context_header == "# Export > $"
    assert all(c.context_header.startswith("# Export > ## Orders > $") for c in rest)
    assert any(c.context_header.startswith("# Export > ## Orders > $.orders[") for c in rest)


def test_nan_and_infinity_are_values_and_a_bad_key_escape_is_not_json() -> None:
    members = ", ".join(f'"k{i}": NaN, "m{i}": -Infinity' for i in range(30))
    chunks = split_markdown(f"```json\n{{{members}}}\n```", ChunkerConfig(100, 0))
    assert len(chunks) > 5 and all(len(c.content) <= 100 for c in chunks)
    # Cut between members: every chunk after the first starts at a key.
    assert all(c.content.startswith(('"k', '"m')) for c in chunks[1:])
    bad = "```json\n{" + ", ".join(f'"k\\q{i}": {i}' for i in range(30)) + "}\n```"
    chunks = split_markdown(bad, ChunkerConfig(chunk_size=100, chunk_overlap=0))
    assert all(len(c.content) <= 100 for c in chunks)
    assert {c.context_header for c in chunks} == {"$"}


def test_a_json_fence_that_fits_stays_one_chunk_without_a_path() -> None:
    text = fenced({"a": 1})
    (chunk,) = split_markdown(text, ChunkerConfig(chunk_size=200, chunk_overlap=0))
    assert (chunk.content, chunk.context_header) == (text, "")


def test_other_fences_and_unbalanced_json_are_cut_as_code_between_lines() -> None:
    body = json.dumps(orders(3), indent=2)
    for opening in ("```python", "```json"):
        text = f"{opening}\n{body if opening == '```python' else body[:-1]}\n```"
        chunks = split_markdown(text, ChunkerConfig(chunk_size=200, chunk_overlap=0))
        assert len(chunks) > 1 and all(len(c.content) <= 200 for c in chunks)
        assert {c.context_header for c in chunks} == {""}, "no JSON path"
        for chunk in chunks:
            assert chunk.content.startswith(opening + "\n") and chunk.content.endswith("\n```")


def test_json_malformed_inside_its_brackets_is_cut_as_text() -> None:
    text = "```json\n[" + ", ".join(f'"item {i}"' for i in range(40)) + ",]\n```"
    chunks = split_markdown(text, ChunkerConfig(chunk_size=100, chunk_overlap=0))
    assert len(chunks) > 1 and all(len(c.content) <= 100 for c in chunks)
    assert {c.context_header for c in chunks} == {"$"}


def test_nesting_past_the_depth_cap_is_cut_as_text() -> None:
    deep: Any = "leaf " * 100
    for _ in range(MAX_DEPTH + 20):
        deep = {"k": deep}
    text = fenced(deep, indent=None)
    chunks = split_markdown(text, ChunkerConfig(chunk_size=120, chunk_overlap=0))
    assert all(len(c.content) <= 120 for c in chunks)
    assert_covers(text, chunks)


def test_children_of_a_parent_inside_a_json_fence_are_cut_along_it_too() -> None:
    text = fenced(orders(6))
    parents, children = split_parent_child(text, ChunkerConfig(900, 0), ChunkerConfig(250, 0))
    assert len(parents) > 3
    assert all(len(p.content) <= 900 for p in parents)
    assert all(len(c.content) <= 250 for c in children)
    for child in children:
        parent = parents[child.parent_index]
        assert parent.start <= child.start < child.end <= parent.end
        assert PATH.match(child.context_header)
        assert child.context_header.startswith(parent.context_header.split("[")[0])
    assert any(c.context_header.startswith("$.orders[2]") for c in children)
