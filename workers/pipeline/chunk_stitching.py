"""The parsed Markdown of a round, put back together from its text chunks.

Every text chunk records the code-point range ``[start, end)`` of the Markdown it came
from, and its content ends with exactly that text (a chunker may put something in front,
such as a table's header row repeated in a continuation chunk). So the text is rebuilt
range by range: what a chunk repeats of the one before it (its overlap) is skipped, what
it put in front is dropped, and a gap between two ranges — only ever whitespace between
blocks — becomes a line break, or a blank line when it was longer than one character.

Chunks without usable ranges (none recorded, or a content shorter than its range) are
joined in chunk order with blank lines between them instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TextSlice:
    index: int
    content: str
    start: int
    end: int


def rebuild_markdown(slices: Sequence[TextSlice]) -> str:
    if not all(0 < s.end - s.start <= len(s.content) for s in slices):
        return "\n\n".join(s.content for s in sorted(slices, key=lambda s: s.index))
    parts: list[str] = []
    covered: int | None = None
    for piece in sorted(slices, key=lambda s: (s.start, s.end)):
        source = piece.content[len(piece.content) - (piece.end - piece.start) :]
        if covered is None or piece.start >= covered:
            if covered is not None and piece.start > covered:
                parts.append("\n" if piece.start - covered == 1 else "\n\n")
            parts.append(source)
        elif piece.end > covered:
            parts.append(source[covered - piece.start :])
        covered = piece.end if covered is None else max(covered, piece.end)
    return "".join(parts)
