"""Splits one tag-filtered pass over a docx body into the nodes of each top-level block.

lxml's tag-filtered iterator is fast once running but costly to set up, so one iterator per
paragraph would cost more than the whole body pass. Instead the body is scanned once, and each
block (paragraph or table) gets the scanned nodes between its own start and the next block's;
only the current block's nodes are held.
"""

from __future__ import annotations

from collections.abc import Iterator

from server.docreader.parsers.office.wordml import Element, body_blocks


def block_nodes(body: Element, tags: tuple[str, ...]) -> Iterator[tuple[Element, list[Element]]]:
    """Each paragraph/table of ``body`` in order, with its descendants among ``tags`` (which
    must include w:p and w:tbl, so that every block start is met)."""
    blocks = body_blocks(body)
    if not blocks:
        return
    index, upcoming, last = -1, blocks[0], len(blocks) - 1
    nodes: list[Element] = []
    add = nodes.append
    for node in body.iterdescendants(*tags):
        if node is not upcoming:
            add(node)
            continue
        if index >= 0:
            yield blocks[index], nodes
        index, nodes = index + 1, []
        add = nodes.append
        upcoming = blocks[index + 1] if index < last else None
    yield blocks[index], nodes
