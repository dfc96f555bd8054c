"""split_parent_child: children are chunks of their parent, offsets into the whole text, cut
by the same rules as any chunk; a child continuing a table repeats its header, even when its
parent is itself the continuation of that table."""

from __future__ import annotations

import pytest

from tests.unit.chunker.chunk_rules import (
    assert_continuations_have_no_overlap,
    assert_region_rules,
    continued_table,
)
from tests.unit.chunker.generated_markdown import generate_document
from workers.chunker import ChunkerConfig, split_markdown, split_parent_child

PARENT = ChunkerConfig(chunk_size=600, chunk_overlap=60)
CHILD = ChunkerConfig(chunk_size=120, chunk_overlap=20)
# Small parents cut the generated tables themselves, so children continue a parent's table.
SMALL_PARENT = ChunkerConfig(chunk_size=200, chunk_overlap=40)
SMALL_CHILD = ChunkerConfig(chunk_size=64, chunk_overlap=10)
SIZES = [(PARENT, CHILD), (SMALL_PARENT, SMALL_CHILD)]


@pytest.mark.parametrize(("parent_config", "child_config"), SIZES)
@pytest.mark.parametrize("seed", range(40))
def test_children_lie_inside_their_parent_and_follow_the_chunk_rules(
    seed: int, parent_config: ChunkerConfig, child_config: ChunkerConfig
) -> None:
    document = generate_document(seed)
    text = document.text
    parents, children = split_parent_child(text, parent_config, child_config)
    assert parents == split_markdown(text, parent_config)
    assert children
    assert [c.index for c in children] == list(range(len(children)))
    assert [c.parent_index for c in children] == sorted(c.parent_index for c in children)
    for child in children:
        assert child.context_header == document.expected_breadcrumbs(child.start)
    # Across parents: a child continuing a table, even the first child of a parent that
    # continues one, repeats that table's header and overlaps nothing.
    assert_continuations_have_no_overlap(document, children)
    for parent in parents:
        own = [c for c in children if c.parent_index == parent.index]
        assert own, f"parent {parent.index} has children"
        assert_region_rules(document, own, child_config, parent.start, parent.end)
        visible = {i for i in range(parent.start, parent.end) if not text[i].isspace()}
        covered = {i for c in own for i in range(c.start, c.end)}
        assert visible <= covered


def test_the_seeds_give_children_parents_that_continue_a_table() -> None:
    """The rules above are not vacuous: the small parents do continue tables, and their
    children cut those tables again."""
    continuing_parents = continuing_children = 0
    for seed in range(40):
        document = generate_document(seed)
        parents, children = split_parent_child(document.text, SMALL_PARENT, SMALL_CHILD)
        continuing_parents += sum(continued_table(document, p.start) is not None for p in parents)
        continuing_children += sum(continued_table(document, c.start) is not None for c in children)
    assert continuing_parents > 0
    assert continuing_children > continuing_parents


def test_child_breadcrumbs_come_from_the_whole_document() -> None:
    text = "# Guide\n\n## Install\n\n" + "Run the installer and wait for it. " * 30
    _, children = split_parent_child(
        text, ChunkerConfig(chunk_size=400, chunk_overlap=0), ChunkerConfig(80, 0)
    )
    later = [c for c in children if c.parent_index > 0]
    assert later, "the text needs more than one parent"
    assert all(c.context_header == "# Guide > ## Install" for c in later)


def test_children_of_a_parent_continuing_a_table_without_edge_pipes_repeat_its_header() -> None:
    header = "a | b\n--|--"
    rows = [f"row {n} has words | and more words {n}" for n in range(6)]
    text = header + "\n" + "\n".join(rows)
    one_row_each = [header + "\n" + row for row in rows]
    assert [c.content for c in split_markdown(text, ChunkerConfig(30, 0))] == one_row_each
    parents, children = split_parent_child(text, ChunkerConfig(90, 0), ChunkerConfig(30, 0))
    assert len(parents) == 3
    assert [c.content for c in children] == one_row_each
