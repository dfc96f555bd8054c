"""The content of slide shapes as Markdown pieces: text frames with bullet levels, tables.

python-pptx has no public bullet API, so a paragraph's own a:pPr is read for a:buNone,
a:buAutoNum (numbered) or a:buChar / a:buBlip (bulleted); without one, paragraphs of body and
object placeholders are bulleted (as slide masters make them) and other text is plain.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from pptx.enum.shapes import PP_PLACEHOLDER

from server.docreader.text.cjk import one_line

_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_NO_BULLET, _NUMBERED = _A + "buNone", _A + "buAutoNum"
_BULLETED = frozenset({_A + "buChar", _A + "buBlip"})
_MAX_LEVEL = 8
# Placeholders whose paragraphs are bullets unless they say otherwise.
BULLETED_PLACEHOLDERS = frozenset(
    {PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT, PP_PLACEHOLDER.VERTICAL_BODY,
     PP_PLACEHOLDER.VERTICAL_OBJECT}
)  # fmt: skip


class Piece(NamedTuple):
    text: str
    # A list item's depth and marker ("- " or "N. "); marker "" for a plain block.
    depth: int = 0
    marker: str = ""


def text_frame_pieces(paragraphs: Iterable[Any], *, bulleted: bool) -> list[Piece]:
    """Each non-empty paragraph as a plain block or a list item at its level."""
    pieces: list[Piece] = []
    counters: dict[int, int] = {}
    for paragraph in paragraphs:
        text = paragraph.text.replace("\v", "\n")
        level = min(max(int(paragraph.level), 0), _MAX_LEVEL)
        kind = _bullet_kind(paragraph, bulleted)
        if kind is None:
            lines = [line.strip() for line in text.split("\n")]
            block = "\n".join(line for line in lines if line)
            if block:
                pieces.append(Piece(block))
            continue
        item = one_line(text)
        if not item:
            continue
        for deeper in [key for key in counters if key > level]:
            del counters[deeper]
        if kind == "number":
            counters[level] = counters.get(level, 0) + 1
            marker = f"{counters[level]}. "
        else:
            counters.pop(level, None)
            marker = "- "
        pieces.append(Piece(item, level, marker))
    return pieces


def _bullet_kind(paragraph: Any, bulleted: bool) -> str | None:
    ppr = paragraph._p.pPr
    if ppr is not None:
        for child in ppr.iterchildren():
            if child.tag == _NO_BULLET:
                return None
            if child.tag == _NUMBERED:
                return "number"
            if child.tag in _BULLETED:
                return "bullet"
    return "bullet" if bulleted else None


def table_rows(table: Any) -> list[list[str]]:
    """Rows of cell text; a merged cell's text fills every grid cell it spans."""
    height, width = len(table.rows), len(table.columns)
    grid: list[list[str | None]] = [[None] * width for _ in range(height)]
    # Walking the rows once: table.cell(r, c) looks row r up again on every call.
    for row, table_row in enumerate(table.rows):
        for column, cell in enumerate(table_row.cells):
            if column >= width or grid[row][column] is not None:
                continue
            text = cell.text.replace("\v", "\n")
            if not cell.is_merge_origin:
                grid[row][column] = text
                continue
            for below in range(row, min(row + cell.span_height, height)):
                for right in range(column, min(column + cell.span_width, width)):
                    grid[below][right] = text
    return [[cell or "" for cell in row] for row in grid]
