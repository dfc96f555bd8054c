"""Splits one tag-filtered pass over a docx body into the nodes of each top-level block.

lxml's tag-filtered iterator is fast once running but costly to set up, so one iterator per
paragraph would cost more than the whole body pass. Instead the body is scanned once, and each
block (paragraph or table) gets the scanned nodes between its own start and the next block's;
only the current block's nodes are held, and the blocks are found as the scan goes (holding all
of a long body's blocks would cost the cyclic garbage collector several passes).

Most paragraphs are plain: the scan meets nothing in them (see docx_inline's SCAN_TAGS).
Consecutive plain paragraphs come out together, so that their text can be read in one
comprehension rather than one round trip through the caller's loop each.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from server.docreader.parsers.office.wordml import Element, W, body_blocks

_P = W + "p"
# At most this many plain paragraphs come out together, so that Markdown still streams out of a
# long plain document.
_MAX_RUN = 256


def block_nodes(
    body: Element, tags: tuple[str, ...]
) -> Iterator[tuple[Element | None, list[Element]]]:
    """Each paragraph/table of ``body`` in order, with its descendants among ``tags`` (which
    must include w:p and w:tbl, so that every block start is met); a run of consecutive plain
    paragraphs (without any such descendant) comes as ``(None, paragraphs)``."""
    blocks = body_blocks(body)
    current, upcoming = None, next(blocks, None)
    if upcoming is None:
        return
    run: list[Element] = []
    nodes: list[Element] = []
    add = nodes.append
    # The trailing None meets the None that ``upcoming`` becomes after the last block, which
    # ends that block like any other.
    for node in chain(body.iterdescendants(*tags), (None,)):
        if node is not upcoming:
            add(node)
            continue
        if current is not None:
            if nodes or current.tag != _P:
                if run:
                    yield None, run
                    run = []
                yield current, nodes
                nodes = []
                add = nodes.append
            else:
                run.append(current)
                if len(run) == _MAX_RUN:
                    yield None, run
                    run = []
        current, upcoming = node, next(blocks, None)
    if run:
        yield None, run
