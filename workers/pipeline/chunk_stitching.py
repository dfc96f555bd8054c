"""The parsed Markdown of a round, put back together from its text chunks.

Every text chunk records the code-point range ``[start, end)`` of the Markdown it came
from, and its content ends with exactly that text (a chunker may put something in front,
such as a table's header row repeated in a continuation chunk). So the text is rebuilt
range by range: what a chunk repeats of the one before it (its overlap) is skipped, what
it put in front is dropped, and a gap between two ranges — only ever whitespace between
blocks — becomes a line break, or a blank line when it was longer than one character.

Chunks without usable ranges (none recorded, or a content shorter than its range) are
joined in chunk order with blank lines between them instead, except where a table goes on:
a chunk that ends in a table, followed by one that starts with that table's header and
delimiter rows (as the chunker repeats them in a continuation chunk), is joined to it with a
single line break and without the repeated rows, so the table stays one table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workers.chunker.blocks import BlockKind, scan_blocks, table_layout


@dataclass(frozen=True)
class TextSlice:
    index: int
    content: str
    start: int
    end: int


def rebuild_markdown(slices: Sequence[TextSlice]) -> str:
    if not all(0 < s.end - s.start <= len(s.content) for s in slices):
        return _joined_in_chunk_order(slices)
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


def _joined_in_chunk_order(slices: Sequence[TextSlice]) -> str:
    text = ""
    previous: str | None = None
    for piece in sorted(slices, key=lambda s: s.index):
        header = None if previous is None else _header_of_closing_table(previous)
        if header is not None and piece.content.startswith(header):
            text = text.rstrip("\n") + "\n" + piece.content[len(header) :]
        elif previous is None:
            text = piece.content
        else:
            text += "\n\n" + piece.content
        previous = piece.content
    return text


def _header_of_closing_table(content: str) -> str | None:
    """The header and delimiter rows, with the line break the chunker adds after them, of
    the table ``content`` ends in; None when it ends in something else or a headerless table.
    """
    blocks = scan_blocks(content)
    if not blocks or blocks[-1].kind is not BlockKind.TABLE or content[blocks[-1].end :].strip():
        return None
    header = table_layout(content, blocks[-1]).header
    return None if header is None else content[header[0] : header[1]] + "\n"
