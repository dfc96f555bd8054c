"""One column region's lines and atoms → Markdown blocks: paragraphs, headings, list items.

A new paragraph starts where the line pitch jumps (paragraph spacing), after a short line
ending a sentence, at a first-line indent, at a bullet or a font-size change. A short
paragraph set clearly larger than the body font becomes a heading: ``#`` from 1.6x the body
size, ``##`` from 1.3x, ``###`` from 1.15x; a heading wrapped onto more lines stays one.
Bullets (•, ▪, en dash...) become "- " items, numbers ("1.", "2)", or a bare "3" set apart
from the text) ordered items; a wrapped line indented to the item's text continues the item,
and consecutive items stay in one list block.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise

from server.docreader.parsers.pdf.blocks import SENTENCE_END, Atom, Block
from server.docreader.parsers.pdf.lines import Line, join_lines, row_line
from server.docreader.parsers.pdf.text import Piece

_HEADING_RATIOS = ((1.6, 1), (1.3, 2), (1.15, 3))
_MAX_HEADING_LINES = 3
_MAX_HEADING_CHARS = 200
# Pitch (top to top) beyond max(_BREAK_EM x size, _BREAK_RATIO x the usual pitch) is a break.
_BREAK_EM = 1.45
_BREAK_RATIO = 1.25
_SHORT_LINE = 0.2
_INDENT_EM = 0.8
# A list item's wrapped lines start at its text: past the marker, at most this many ems in.
_HANGING_EM = 3.0
_SIZE_CHANGE = 0.12
# Bullet glyphs, including the Symbol/Wingdings private-use code points office suites emit.
_BULLET = re.compile("^[•◦▪‣●○■□·∙\u2013*\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf0a8]\\s+")
_NUMBERED = re.compile(r"^(\d{1,3}|[a-zA-Z])[.)]\s+")
_ITEM_START = re.compile(f"{_BULLET.pattern}|{_NUMBERED.pattern}")
_ESCAPE_START = re.compile(r"^(#|>|[+*] |-{3,}|_{3,})")
# A list number drawn apart from its item's text (reportlab's ListFlowable: "1", no dot).
_BARE_NUMBER = re.compile(r"\d{1,3}")


class BodySize:
    """The body font size: the size that set the most characters in the document so far."""

    def __init__(self) -> None:
        self._chars: dict[float, int] = {}

    def add(self, pieces: Iterable[Piece]) -> None:
        chars = self._chars
        for piece in pieces:
            chars[piece.size] = chars.get(piece.size, 0) + len(piece.text)

    @property
    def value(self) -> float:
        # Sizes are counted as PDFium reports them and grouped to half points only here.
        grouped: dict[float, int] = {}
        for size, count in self._chars.items():
            half = round(size * 2) / 2
            grouped[half] = grouped.get(half, 0) + count
        return max(grouped, key=grouped.__getitem__) if grouped else 0.0


def region_blocks(
    rows: Sequence[list[Piece]], atoms: Sequence[Atom], body_size: float
) -> list[Block]:
    """The blocks of one region: its text rows (see ``group_rows``) and atoms, top to bottom."""
    lines = [_numbered_line(row, body_size) if len(row) == 2 else row_line(row) for row in rows]
    # Rows come top to bottom already; only atoms need placing among them.
    entries: list[Line | Atom] = (
        sorted([*lines, *atoms], key=lambda entry: entry.box.top) if atoms else list(lines)
    )
    region = _Region(lines, body_size)
    blocks: list[tuple[str, str]] = []
    paragraph: list[Line] = []
    for entry in entries:
        if isinstance(entry, Atom):
            blocks.extend(region.render(paragraph))
            paragraph = []
            blocks.append(("atom", entry.markdown))
            continue
        if paragraph and region.breaks(paragraph[-1], entry):
            blocks.extend(region.render(paragraph))
            paragraph = []
        paragraph.append(entry)
    blocks.extend(region.render(paragraph))
    return _merge_lists(blocks)


class _Region:
    def __init__(self, lines: list[Line], body_size: float) -> None:
        self._body = body_size
        self._x0 = min((line.box.x0 for line in lines), default=0.0)
        self._x1 = max((line.box.x1 for line in lines), default=0.0)
        pitches: list[float] = []
        for (above, _, size_above), (below, _, size_below) in pairwise(lines):
            larger = size_above if size_above > size_below else size_below
            if abs(size_above - size_below) <= _SIZE_CHANGE * larger and below.top > above.bottom:
                pitches.append(below.top - above.top)
        # The lower quartile: the usual pitch inside a paragraph, whatever the spacing between.
        pitch = sorted(pitches)[len(pitches) // 4] if len(pitches) >= 4 else 0.0
        self._pitch_limit = _BREAK_RATIO * pitch
        # A line ending before this stops its paragraph when it ends a sentence.
        self._short_end = self._x1 - _SHORT_LINE * (self._x1 - self._x0)

    def level(self, line: Line) -> int:
        if self._body <= 0 or len(line.text) > _MAX_HEADING_CHARS:
            return 0
        ratio = line.size / self._body
        for bound, level in _HEADING_RATIOS:
            if ratio >= bound:
                return level
        return 0

    def breaks(self, previous: Line, line: Line) -> bool:
        # Tuples unpacked and no max(): this runs for every line of every page.
        box_before, text_before, size_before = previous
        box, text, line_size = line
        size = size_before if size_before > line_size else line_size
        if abs(size_before - line_size) > _SIZE_CHANGE * size:
            return True
        if size > 1.1 * self._body and self.level(previous) != self.level(line):
            return True
        limit = _BREAK_EM * size
        if limit < self._pitch_limit:
            limit = self._pitch_limit
        if box.top - box_before.top > limit and not self._heading_wraps(previous, line, limit):
            return True
        if _ITEM_START.match(text):
            return True
        if box_before.x1 < self._short_end and text_before.endswith(SENTENCE_END):
            return True
        indented = box.x0 - self._x0 > _INDENT_EM * line_size
        return (
            indented
            and box_before.x0 - self._x0 < 0.3 * line_size
            and not self._continues_item(previous, line)
        )

    def _continues_item(self, item: Line, line: Line) -> bool:
        """Whether ``line`` is the first wrapped line of the list item starting at ``item``.

        Only a full line wraps; after a short one, an indented line starts a paragraph (a
        numbered run-in title "5. COMBINING DOCUMENTS", then its text).
        """
        return (
            item.box.x1 >= self._short_end
            and _ITEM_START.match(item.text) is not None
            and line.box.x0 - item.box.x0 <= _HANGING_EM * line.size
        )

    def _heading_wraps(self, previous: Line, line: Line, limit: float) -> bool:
        """Whether two heading lines in one size, tops too far apart, are one heading still.

        Tops measure the pitch badly when the lower line has no capital or ascender (a
        wrapped "compares."); bottoms measure it then, and show a gap between two headings.
        """
        size = line.size
        return (
            abs(previous.size - size) <= 0.01 * size
            and self.level(line) > 0
            and line.box.bottom - previous.box.bottom <= limit
        )

    def render(self, paragraph: list[Line]) -> list[tuple[str, str]]:
        if not paragraph:
            return []
        text = join_lines(line.text for line in paragraph)
        level = self.level(paragraph[0])
        if level and len(paragraph) <= _MAX_HEADING_LINES:
            return [("heading", f"{'#' * level} {text}")]
        bullet = _BULLET.match(text)
        if bullet:
            return [("item", f"- {text[bullet.end() :]}")]
        if _NUMBERED.match(text):
            return [("item", text)]
        return [("text", _escape(text))]


def _numbered_line(row: list[Piece], body_size: float) -> Line:
    """The line of a two-piece row; a bare number before text is written "1. text".

    The number is no smaller than the text (a footnote mark is) and stands close to it; text
    in a heading size keeps its number as set ("2 Methods").
    """
    number, rest = row
    line = row_line(row)
    if (
        _BARE_NUMBER.fullmatch(number.text)
        and number.size >= 0.9 * rest.size
        and rest.box.x0 - number.box.x1 <= _HANGING_EM * rest.size
        and rest.size < _HEADING_RATIOS[-1][0] * body_size
    ):
        return line._replace(text=f"{number.text}. {rest.text}")
    return line


def _escape(text: str) -> str:
    """A backslash before a character that would turn the paragraph into other Markdown."""
    return "\\" + text if _ESCAPE_START.match(text) else text


def _merge_lists(blocks: list[tuple[str, str]]) -> list[Block]:
    merged: list[Block] = []
    previous_kind = ""
    for kind, markdown in blocks:
        if kind == "item" and previous_kind == "item":
            merged[-1] = Block(f"{merged[-1].markdown}\n{markdown}")
        else:
            merged.append(Block(markdown, paragraph=kind == "text"))
        previous_kind = kind
    return merged
