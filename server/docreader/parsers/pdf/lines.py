"""Pieces of text on one baseline grouped into lines, and lines joined into running text.

Used by paragraphs, table cells and margin detection alike. Joining undoes end-of-line
hyphenation when it is obvious: PDFium's hyphen mark (U+FFFE) always, and a plain "-" after a
letter when the next line starts with a lower-case letter; lines of Chinese or Japanese join
without a space.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from operator import attrgetter
from typing import NamedTuple, cast

from server.docreader.parsers.pdf.geometry import Box, union_all
from server.docreader.parsers.pdf.text import HYPHEN_MARK, Piece
from server.docreader.text.cjk import line_separator

# Line ends that may be hyphenation (see join_lines).
_HYPHENS = "-" + HYPHEN_MARK
_TOP = attrgetter("box.top")
_LEFT = attrgetter("box.x0")
# No character below this is Chinese or Japanese (see cjk.is_unspaced).
_FIRST_UNSPACED = "\u2e80"


class Line(NamedTuple):
    box: Box
    text: str
    size: float


# Line(...) runs a Python-level __new__; a line per piece is built as a plain tuple instead.
_make_line = cast(Callable[[Piece], Line], partial(tuple.__new__, Line))


def group_lines(pieces: Iterable[Piece]) -> list[Line]:
    """Pieces that overlap vertically by half their height form a line, read left to right."""
    return [row_line(row) for row in group_rows(pieces)]


def group_rows(pieces: Iterable[Piece]) -> list[list[Piece]]:
    """The pieces of each line, top to bottom; a line's pieces are sorted left to right."""
    rows: list[list[Piece]] = []
    row: list[Piece] = []
    top = bottom = 0.0
    for piece in sorted(pieces, key=_TOP):
        _, piece_top, _, piece_bottom = piece.box
        if row:
            # Plain comparisons: this loop runs for every piece of every page.
            overlap = (bottom if bottom < piece_bottom else piece_bottom) - piece_top
            height = piece_bottom - piece_top
            if overlap >= 0.5 * (height if height < bottom - top else bottom - top):
                row.append(piece)
                if piece_bottom > bottom:
                    bottom = piece_bottom
                continue
        row = [piece]
        rows.append(row)
        top, bottom = piece_top, piece_bottom
    for row in rows:
        if len(row) > 1:
            row.sort(key=_LEFT)
    return rows


def row_line(row: list[Piece]) -> Line:
    """The line made of one row of pieces (see ``group_rows``)."""
    if len(row) == 1:
        return _make_line(row[0])
    text = " ".join(piece.text for piece in row)
    size = max(row, key=lambda p: len(p.text)).size
    return Line(union_all([piece.box for piece in row]), text, size)


def join_lines(texts: Iterable[str]) -> str:
    """Lines of one paragraph as a single string, with line-end hyphenation undone."""
    parts = [stripped for stripped in (text.strip() for text in texts) if stripped]
    if not any(part[-1] in _HYPHENS or part[-1] >= _FIRST_UNSPACED for part in parts[:-1]):
        # No line but the last ends with a hyphen or a CJK character (most paragraphs).
        return finish_text(" ".join(parts))
    result = ""
    for text in parts:
        if not result:
            result = text
        elif result.endswith(HYPHEN_MARK) or _hyphenated(result, text):
            result = result[:-1] + text
        else:
            result = f"{result}{line_separator(result, text)}{text}"
    return finish_text(result)


def finish_text(text: str) -> str:
    """Drop hyphen marks left inside the text; one left at the very end is a real hyphen."""
    if HYPHEN_MARK not in text:
        return text
    if text.endswith(HYPHEN_MARK):
        text = text[:-1] + "-"
    return text.replace(HYPHEN_MARK, "")


def _hyphenated(before: str, after: str) -> bool:
    return (
        len(before) >= 3
        and before[-1] == "-"
        and before[-2].isalpha()
        and before[-3].isalpha()
        and after[0].islower()
    )
