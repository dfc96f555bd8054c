"""Running headers and footers: margin lines repeated across pages, and bare page numbers.

A line is a margin line when it sits in the top or bottom tenth of the page and is set apart
from the body (text, tables, figures) by one and a half line heights or more, more than a
heading is; a page with nothing but such lines has no margins. A margin line that is only a
page number ("7", "- 7 -", "Page 7 of 20", "vii") is dropped at once. Any other margin line
gets a key (lower-cased, without a page number at its start or end: a text run of its own,
or one set off by a dash or bar or written "page 7": "Annual report | 7") and is dropped
when the same key shows up on enough pages: 3, or half the document when that is fewer (but
at least 2). Other numbers stay in the key: a heading on every page that differs only by its
number ("Report - section 12") is content, only repeated text is furniture.

The parser streams pages, so the filter holds back a short window of pages (their Markdown
only) until the pages after them have been seen; memory stays bounded by the window.
"""

from __future__ import annotations

import math
import re
from collections import Counter, deque
from dataclasses import dataclass

from server.docreader.parsers.pdf.blocks import Block
from server.docreader.parsers.pdf.geometry import Box
from server.docreader.parsers.pdf.lines import finish_text, group_rows
from server.docreader.parsers.pdf.text import Piece

_BAND = 0.10
# A margin line stands this many of its heights away from the body (a heading is closer).
_GAP_EM = 1.5
_MIN_GAP = 4.0
_MAX_REPEATS_NEEDED = 3
LOOKAHEAD_PAGES = 6
_PAGE_NUMBER = re.compile(
    r"(?:page|pg\.?|p\.)?\s*(?:\d{1,5}(?:\s*(?:of|/)\s*\d{1,5})?"
    r"|(?=[ivxlcdm])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3}))",
    re.IGNORECASE,
)
# Around a page number: dashes (hyphen, en, em), bars, dots and brackets.
_DECORATION = " \t-\u2013\u2014|\u00b7\u2022()[]"
# A page number set off at the start or end of a margin line by a dash or bar, or "page 7".
_DASHES = "-\u2013\u2014|\u00b7\u2022"
_PAGE_WORD = r"(?:page|pg\.?|p\.)\s*\d{1,5}(?:\s*(?:of|/)\s*\d{1,5})?"
# Spaces on the text's side: the "-03" of a date is no page number.
_LEADING_PAGE = re.compile(
    rf"^\s*(?:{_PAGE_WORD}(?:\s*[{_DASHES}]+)?|\d{{1,5}}\s*[{_DASHES}]+)\s+(?=\S)",
    re.IGNORECASE,
)
_TRAILING_PAGE = re.compile(
    rf"(?<=\S)\s+(?:(?:[{_DASHES}]+\s*)?{_PAGE_WORD}|[{_DASHES}]+\s*\d{{1,5}})\s*$",
    re.IGNORECASE,
)


@dataclass
class Margins:
    top: list[Block]
    body: list[Piece]
    bottom: list[Block]


def split_margins(pieces: list[Piece], others: list[Box], page_height: float) -> Margins:
    """Margin rows set apart from the body, which is the other pieces and ``others``."""
    top_limit, bottom_limit = _BAND * page_height, (1 - _BAND) * page_height
    top_band: list[Piece] = []
    bottom_band: list[Piece] = []
    for piece in pieces:
        _, top, _, bottom = piece.box
        if bottom <= top_limit:
            top_band.append(piece)
        elif top >= bottom_limit:
            bottom_band.append(piece)
    if not top_band and not bottom_band:
        return Margins([], pieces, [])
    top_rows = group_rows(top_band)
    bottom_rows = group_rows(bottom_band)
    top_rows = top_rows[: _top_cut(top_rows, pieces, others)]
    bottom_rows = bottom_rows[_bottom_cut(bottom_rows, pieces, others) :]
    if not top_rows and not bottom_rows:
        return Margins([], pieces, [])
    taken = {id(piece) for row in (*top_rows, *bottom_rows) for piece in row}
    body = [piece for piece in pieces if id(piece) not in taken]
    if not body and not others:
        # Nothing but "margin" lines: a short page whose text sits near an edge is body.
        return Margins([], pieces, [])
    return Margins(_margin_blocks(top_rows), body, _margin_blocks(bottom_rows))


def _top_cut(rows: list[list[Piece]], pieces: list[Piece], others: list[Box]) -> int:
    """How many top-band rows come before the first clear gap above the body."""
    members = {id(piece) for row in rows for piece in row}
    below = min(
        [p.box.top for p in pieces if id(p) not in members] + [box.top for box in others],
        default=math.inf,
    )
    for k, row in enumerate(rows):
        top, bottom = min(p.box.top for p in row), max(p.box.bottom for p in row)
        following = min(p.box.top for p in rows[k + 1]) if k + 1 < len(rows) else math.inf
        if min(following, below) - bottom >= max(_GAP_EM * (bottom - top), _MIN_GAP):
            return k + 1
    return 0


def _bottom_cut(rows: list[list[Piece]], pieces: list[Piece], others: list[Box]) -> int:
    """Index of the first bottom-band row after the last clear gap below the body."""
    members = {id(piece) for row in rows for piece in row}
    above = max(
        [p.box.bottom for p in pieces if id(p) not in members] + [box.bottom for box in others],
        default=-math.inf,
    )
    for k in range(len(rows) - 1, -1, -1):
        row = rows[k]
        top, bottom = min(p.box.top for p in row), max(p.box.bottom for p in row)
        preceding = max(p.box.bottom for p in rows[k - 1]) if k > 0 else -math.inf
        if top - max(preceding, above) >= max(_GAP_EM * (bottom - top), _MIN_GAP):
            return k
    return len(rows)


def _margin_blocks(rows: list[list[Piece]]) -> list[Block]:
    blocks: list[Block] = []
    for row in rows:
        texts = [finish_text(piece.text) for piece in row]
        text = " ".join(texts)
        if _is_page_number(text):
            continue
        blocks.append(Block(text, margin_key=_margin_key(texts)))
    return blocks


def _is_page_number(text: str) -> bool:
    return _PAGE_NUMBER.fullmatch(text.strip(_DECORATION)) is not None


def _margin_key(texts: list[str]) -> str:
    """The margin line without its page number: a text run of its own at either end, or one
    set off inside the run ("Annual report | 7"); lower-cased, spaces collapsed."""
    if len(texts) > 1 and _is_page_number(texts[0]):
        texts = texts[1:]
    if len(texts) > 1 and _is_page_number(texts[-1]):
        texts = texts[:-1]
    text = _TRAILING_PAGE.sub("", _LEADING_PAGE.sub("", " ".join(texts)))
    return " ".join(text.lower().split())


class RepeatedMarginFilter:
    """Holds pages back until it can tell whether their margin lines repeat."""

    def __init__(self, page_count: int, lookahead: int = LOOKAHEAD_PAGES) -> None:
        self._needed = min(_MAX_REPEATS_NEEDED, max(2, math.ceil(page_count / 2)))
        self._lookahead = lookahead
        self._seen: Counter[str] = Counter()
        self._pending: deque[list[Block]] = deque()

    def push(self, blocks: list[Block]) -> list[list[Block]]:
        """Add the next page; returns the pages now final, with repeated lines removed."""
        self._seen.update({block.margin_key for block in blocks if block.margin_key})
        self._pending.append(blocks)
        ready: list[list[Block]] = []
        while len(self._pending) > self._lookahead:
            ready.append(self._filter(self._pending.popleft()))
        return ready

    def finish(self) -> list[list[Block]]:
        ready = [self._filter(page) for page in self._pending]
        self._pending.clear()
        return ready

    def _filter(self, blocks: list[Block]) -> list[Block]:
        return [
            block
            for block in blocks
            if not block.margin_key or self._seen[block.margin_key] < self._needed
        ]
