"""Heading breadcrumbs: which headings are in force at a given offset."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from workers.chunker.blocks import Block, BlockKind


class Breadcrumbs:
    """A heading is in force from its own first character until a heading of the same or a
    higher level replaces it, so a chunk that starts with a heading carries it too."""

    def __init__(self, blocks: Iterable[Block]) -> None:
        self._starts: list[int] = []
        self._trails: list[str] = []
        stack: list[Block] = []
        heading = BlockKind.HEADING  # (bound once: an Enum member lookup is slow)
        for block in [b for b in blocks if b.kind is heading]:
            while stack and stack[-1].heading_level >= block.heading_level:
                stack.pop()
            stack.append(block)
            self._starts.append(block.start)
            self._trails.append(" > ".join(h.heading_label for h in stack))

    def at(self, offset: int) -> str:
        position = bisect.bisect_right(self._starts, offset) - 1
        return self._trails[position] if position >= 0 else ""
