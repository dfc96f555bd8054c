"""The parsed Markdown of a round, put back together from its text chunks.

Every text chunk records the code-point range ``[start, end)`` of the Markdown it came
from, and its content holds exactly that text, with what the chunker adds around it: in
front, a cut table's header rows or a cut code fence's opening line, repeated in a
continuation chunk; after it, a closing fence line when the chunk ends inside a code fence.
So the text is rebuilt range by range: what a chunk repeats of the one before it (its
overlap) is skipped, what the chunker added is dropped, and a gap between two ranges — only
ever whitespace between blocks, or the line break between two pieces of a cut fence —
becomes a line break, or a blank line when it was longer than one character. A chunk got
an opening line when the one before it (by range) ended inside a fence, and a closing line
when its content ends with a fence marker line that the length of what was added leaves
room for, after nothing or a table's header rows.

Chunks without usable ranges (none recorded, or a content shorter than its range) are
joined in chunk order with blank lines between them instead, except where a table goes on:
a chunk that ends in a table, followed by one that starts with that table's header and
delimiter rows (as the chunker repeats them in a continuation chunk), is joined to it with a
single line break and without the repeated rows, so the table stays one table; likewise a
chunk that ends in a code fence closed by a bare marker line, followed by one that starts
with that fence's opening line, is taken for a cut fence: the closing and opening lines are
dropped and the two joined with a line break (two separate fences of the same language in a
row, split that way, are joined too: without ranges they cannot be told apart).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from workers.chunker.blocks import BlockKind, fence_opening, scan_blocks, table_layout

# A fence marker alone on a line: the closing line the chunker adds.
_MARKER_LINE = re.compile(r"`{3,}|~{3,}")


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
    in_fence = False
    for piece in sorted(slices, key=lambda s: (s.start, s.end)):
        source, in_fence = _source_of(piece, in_fence)
        if covered is None or piece.start >= covered:
            if covered is not None and piece.start > covered:
                parts.append("\n" if piece.start - covered == 1 else "\n\n")
            parts.append(source)
        elif piece.end > covered:
            parts.append(source[covered - piece.start :])
        covered = piece.end if covered is None else max(covered, piece.end)
    return "".join(parts)


def _source_of(piece: TextSlice, in_fence: bool) -> tuple[str, bool]:
    """The slice of the Markdown a chunk's content holds, and whether the chunk ended inside
    a cut fence (its content got a closing line). ``in_fence``: whether the chunk before it
    did (then this one starts with the fence's opening line again)."""
    content = piece.content
    added = len(content) - (piece.end - piece.start)
    closer = _added_closer(content, added, in_fence)
    opener = added - closer
    return content[opener : len(content) - closer], closer > 0


def _added_closer(content: str, added: int, in_fence: bool) -> int:
    """How long the closing line (with its line break) after the chunk's slice is; 0 for
    none."""
    if in_fence:
        return added - (content.find("\n") + 1)
    last_break = content.rfind("\n")
    closer = len(content) - last_break
    if added < closer or last_break < 0 or not _MARKER_LINE.fullmatch(content, last_break + 1):
        return 0
    return closer if _is_front_part(content[: added - closer]) else 0


def _is_front_part(front: str) -> bool:
    """Whether ``front`` is what the chunker may put in front of a chunk starting outside a
    fence: nothing, or a table's header and delimiter rows with a line break."""
    if not front:
        return True
    blocks = scan_blocks(front)
    if len(blocks) != 1 or blocks[0].kind is not BlockKind.TABLE or front[-1:] != "\n":
        return False
    layout = table_layout(front, blocks[0])
    return layout.header == (0, len(front) - 1) and not layout.rows


def _joined_in_chunk_order(slices: Sequence[TextSlice]) -> str:
    text = ""
    previous: str | None = None
    for piece in sorted(slices, key=lambda s: s.index):
        header = None if previous is None else _header_of_closing_table(previous)
        fence = None if previous is None else _lines_of_closing_fence(previous)
        if header is not None and piece.content.startswith(header):
            text = text.rstrip("\n") + "\n" + piece.content[len(header) :]
        elif fence is not None and piece.content.startswith(fence[0]):
            text = text[: len(text) - len(fence[1])] + "\n" + piece.content[len(fence[0]) :]
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


def _lines_of_closing_fence(content: str) -> tuple[str, str] | None:
    """The opening line (with its line break) and the closing line (after its line break) of
    the code fence ``content`` ends in, when it is closed by a bare marker line; else None."""
    blocks = scan_blocks(content)
    if not blocks or blocks[-1].kind is not BlockKind.FENCE or content[blocks[-1].end :]:
        return None
    fence = content[blocks[-1].start : blocks[-1].end]
    first_break, last_break = fence.find("\n"), fence.rfind("\n")
    if first_break < 0 or first_break == last_break:
        return None
    closer = fence[last_break:]
    opening = fence_opening(fence[:first_break].rstrip("\r"))
    if opening is None or opening.group("fence") != closer[1:]:
        return None
    return fence[: first_break + 1], closer
