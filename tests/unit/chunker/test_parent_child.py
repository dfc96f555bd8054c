"""split_parent_child: children are chunks of their parent, offsets into the whole text."""

from __future__ import annotations

import pytest

from tests.unit.chunker.generated_markdown import generate_document
from workers.chunker import ChunkerConfig, split_markdown, split_parent_child

PARENT = ChunkerConfig(chunk_size=600, chunk_overlap=60)
CHILD = ChunkerConfig(chunk_size=120, chunk_overlap=20)


@pytest.mark.parametrize("seed", range(40))
def test_children_lie_inside_their_parent(seed: int) -> None:
    document = generate_document(seed)
    text = document.text
    parents, children = split_parent_child(text, PARENT, CHILD)
    assert parents == split_markdown(text, PARENT)
    assert children
    assert [c.index for c in children] == list(range(len(children)))
    for child in children:
        parent = parents[child.parent_index]
        assert parent.start <= child.start < child.end <= parent.end
        assert child.content == text[child.start : child.end]
        assert child.content.strip()
        assert child.context_header == document.expected_breadcrumbs(child.start)
        if len(child.content) > CHILD.chunk_size:
            assert (child.start, child.end) in document.atomic
    for parent in parents:
        own = [c for c in children if c.parent_index == parent.index]
        assert own, f"parent {parent.index} has children"
        visible = {i for i in range(parent.start, parent.end) if not text[i].isspace()}
        covered = {i for c in own for i in range(c.start, c.end)}
        assert visible <= covered


def test_child_breadcrumbs_come_from_the_whole_document() -> None:
    text = "# Guide\n\n## Install\n\n" + "Run the installer and wait for it. " * 30
    _, children = split_parent_child(
        text, ChunkerConfig(chunk_size=400, chunk_overlap=0), ChunkerConfig(80, 0)
    )
    later = [c for c in children if c.parent_index > 0]
    assert later, "the text needs more than one parent"
    assert all(c.context_header == "# Guide > ## Install" for c in later)
