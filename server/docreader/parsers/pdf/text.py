"""The text layer of a page as positioned pieces: runs of text with a box and a font size.

PDFium already turns the page's characters into lines (``get_text_range`` separates them with
CRLF) and can report the rectangles a range of characters covers, one per text object run.
Both calls run in C, so a page costs a few calls per line instead of a Python loop over its
characters. A line whose rectangles are far apart (table cells, two columns drawn line by
line, a hyphenated word PDFium joined across a line break) is cut into one piece per run:
at the spaces PDFium generated between runs when there is one per boundary, else at the
first word starting inside the next run, else by bisecting on the rectangle count of line
prefixes.
"""

from __future__ import annotations

import ctypes
import math
import re
import struct
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, cast

import pypdfium2.raw as pdfium_c

from server.docreader.parsers.pdf.calls import declared, handle
from server.docreader.parsers.pdf.geometry import Box, PageFrame, make_box

# PDFium marks a hyphen it removed when joining a word split across two lines with U+FFFE
# (older builds used U+0002); a soft hyphen means the same.
HYPHEN_MARK = "\ufffe"
_CLEAN = str.maketrans({**{i: " " for i in range(32)}, 2: HYPHEN_MARK, 0xAD: HYPHEN_MARK})
# translate() is slow per character; most pages need none of it, which a regex finds fast
# (CR and LF are PDFium's line separator, and only need it when they come alone).
_NEEDS_CLEANING = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1f\xad]")
# Where a word starts: after a space or after PDFium's hyphen mark.
_WORD_START = re.compile("[ \ufffe](?=[^ ])")
# Lines with more spaces than this are cut by position, not by testing every space.
_MAX_SPACES_TESTED = 12
# Runs further apart than this many font sizes are separate pieces (word spaces are ~0.3 em).
_GAP_EM = 0.8
# A run this short (with its separator) may be a list number: its height tells no size.
_FEW_CHARS = 4
# The per-line and per-run queries, untyped (see calls.py): a page makes hundreds of them.
_COUNT_RECTS = declared(pdfium_c.FPDFText_CountRects, ctypes.c_int)
_GET_RECT = declared(pdfium_c.FPDFText_GetRect, ctypes.c_int)
_FONT_SIZE = declared(pdfium_c.FPDFText_GetFontSize, ctypes.c_double)
_IS_GENERATED = declared(pdfium_c.FPDFText_IsGenerated, ctypes.c_int)
_CHAR_INDEX = declared(pdfium_c.FPDFText_GetCharIndexFromTextIndex, ctypes.c_int)
# Reads the four doubles FPDFText_GetRect wrote (left, top, right, bottom) in one call.
_RECT_VALUES = struct.Struct("4d").unpack_from


class Piece(NamedTuple):
    box: Box
    text: str
    # Font size in points, scaled by the text and page matrices.
    size: float


make_piece = cast(Callable[[tuple[Box, str, float]], Piece], partial(tuple.__new__, Piece))


def page_text(textpage: Any) -> str:
    """All text of the page in PDFium's order, lines separated by CRLF."""
    return str(textpage.get_text_range())


def read_pieces(textpage: Any, frame: PageFrame, text: str) -> list[Piece]:
    raw = textpage.raw
    reader = _PieceReader(raw, frame)
    page = reader.page
    identity = len(text) == pdfium_c.FPDFText_CountChars(raw)
    lines = text.split("\r\n")
    breaks = len(lines) - 1
    if _NEEDS_CLEANING.search(text) or text.count("\n") != breaks or text.count("\r") != breaks:
        # Cleaning maps one character to one, so offsets into the lines stay valid.
        lines = [line.translate(_CLEAN) for line in lines]
    # The common case (one rectangle per line) is inlined: this loop runs for every line.
    count_rects, font_size = _COUNT_RECTS, _FONT_SIZE
    rect = reader.rect
    pieces: list[Piece] = []
    position = 0
    for line in lines:
        start, position = position, position + len(line) + 2
        if not line or line.isspace():
            continue
        if identity:
            first, count = start, len(line)
        else:
            first = _CHAR_INDEX(page, start)
            last = _CHAR_INDEX(page, start + len(line) - 1)
            if first < 0 or last < first:
                continue
            count = last - first + 1
        rect_count = count_rects(page, first, count)
        if rect_count != 1:
            if rect_count > 1:
                reader.add_pieces(pieces, line, first, rect_count)
            continue
        box = rect(0)
        size = font_size(page, first)
        if not 0.3 * size <= box[3] - box[1] <= 1.6 * size:
            size = reader.size(first, box)
        text = " ".join(line.split()) if "  " in line else line.strip()  # _squeezed, inlined
        pieces.append(make_piece((box, text, size)))
    return pieces


class _PieceReader:
    def __init__(self, raw: Any, frame: PageFrame) -> None:
        self._raw = raw
        self.page = handle(raw)
        self._frame = frame
        self._origin = frame.upright_origin
        # FPDFText_GetRect writes into one buffer allocated per page.
        self._rect = (ctypes.c_double * 4)()
        self._rect_refs = [ctypes.byref(self._rect, 8 * n) for n in range(4)]
        self._left, self._top = ctypes.c_double(), ctypes.c_double()
        self._matrix = pdfium_c.FS_MATRIX()

    def add_pieces(self, pieces: list[Piece], line: str, first: int, rect_count: int) -> None:
        """Add the pieces of a (cleaned) line covering several rectangles."""
        box = self.rect(0)
        size = self.size(first, box)
        # Consecutive rectangles on one baseline and close together are one run: (first
        # rectangle, box) per run, grown while the rectangles are read.
        gap_limit = _GAP_EM * size
        groups: list[tuple[int, Box]] = [(0, box)]
        x0, top, x1, bottom = box
        for index in range(1, rect_count):
            box = self.rect(index)
            box_x0, box_top, box_x1, box_bottom = box
            overlap = (bottom if bottom < box_bottom else box_bottom) - (
                top if top > box_top else box_top
            )
            height = bottom - top if bottom - top < box_bottom - box_top else box_bottom - box_top
            if overlap >= 0.5 * height and box_x0 - x1 <= gap_limit and box_x1 > x0:
                x0, top = min(x0, box_x0), min(top, box_top)
                x1, bottom = max(x1, box_x1), max(bottom, box_bottom)
                groups[-1] = (groups[-1][0], make_box((x0, top, x1, bottom)))
            else:
                groups.append((index, box))
                x0, top, x1, bottom = box
        if len(groups) == 1:
            pieces.append(make_piece((groups[0][1], _squeezed(line), size)))
            return
        cuts = self._generated_cuts(line, first, len(groups) - 1)
        if cuts is None:
            cuts = [0]
            for start, box in groups[1:]:
                cuts.append(self._cut(line, first, cuts[-1] + 1, start, box))
            cuts.append(len(line))
        # Runs as tall as the first share its size (table cells); others ask PDFium. A first
        # run of a few characters is no yardstick: a list number in 12 pt is as tall as its
        # item's 10 pt text (a negative height matches no run: each asks, the first too).
        first_height = groups[0][1].height if cuts[1] > _FEW_CHARS else -1.0
        for number, (_, box) in enumerate(groups):
            begin = cuts[number]
            text = _squeezed(line[begin : cuts[number + 1]])
            if text:
                same = abs(box[3] - box[1] - first_height) <= 0.2 * first_height
                run_size = size if same else self.size(first + begin, box)
                pieces.append(make_piece((box, text, run_size)))

    def rect(self, index: int) -> Box:
        """Rectangle ``index`` of the last FPDFText_CountRects call, in display space."""
        _GET_RECT(self.page, index, *self._rect_refs)
        left, top, right, bottom = _RECT_VALUES(self._rect)
        if self._origin:
            x, y = self._origin
            return make_box((left - x, y - top, right - x, y - bottom))
        return self._frame.box(left, bottom, right, top)

    def size(self, index: int, box: Box) -> float:
        size: float = _FONT_SIZE(self.page, index)
        if 0.3 * size <= box.height <= 1.6 * size:
            return size
        if pdfium_c.FPDFText_GetMatrix(self._raw, index, self._matrix):
            # The character matrix carries scaling applied outside the font size (Tf 1 + cm).
            scale = math.hypot(self._matrix.c, self._matrix.d)
            if scale > 0:
                size *= scale
        return size if size > 0 else max(box.height, 1.0)

    def _generated_cuts(self, line: str, first: int, wanted: int) -> list[int] | None:
        """Cuts after the spaces PDFium generated, when there is one per run boundary.

        PDFium puts a generated space between two text runs with a gap and no space of their
        own, which is exactly where a line made of separate runs (table cells) is cut.
        """
        if line.count(" ") > _MAX_SPACES_TESTED:
            return None
        cuts = [0]
        index = line.find(" ")
        while index >= 0:
            if _IS_GENERATED(self.page, first + index) == 1:
                cuts.append(index + 1)
            index = line.find(" ", index + 1)
        if len(cuts) != wanted + 1:
            return None
        cuts.append(len(line))
        return cuts

    def _cut(self, line: str, first: int, low: int, rects_before: int, box: Box) -> int:
        """Offset in the line of the first character of rectangle number ``rects_before``.

        Runs almost always start a word: the first word after ``low`` whose first character
        lies in the run's box while the character before the separator does not is the cut
        (a call per word tried). Otherwise bisect on the rectangle count of line prefixes.
        """
        slack = 0.3 * box.height + 1.0
        for match in _WORD_START.finditer(line, low - 1):
            offset = match.end()
            if self._inside(first + offset, box, slack):
                if offset < 2 or not self._inside(first + offset - 2, box, slack):
                    return offset
                break
        high = len(line)
        while low < high:
            middle = (low + high) // 2
            if _COUNT_RECTS(self.page, first, middle) > rects_before:
                high = middle
            else:
                low = middle + 1
        return low - 1

    def _inside(self, index: int, box: Box, slack: float) -> bool:
        """Whether the origin of character ``index`` lies in ``box`` (widened by ``slack``)."""
        pdfium_c.FPDFText_GetCharOrigin(self._raw, index, self._left, self._top)
        x, y = self._frame.point(self._left.value, self._top.value)
        return box.x0 - slack <= x <= box.x1 and box.top - slack <= y <= box.bottom + slack


def _squeezed(text: str) -> str:
    """Runs of spaces collapsed, ends stripped (control characters are spaces already)."""
    return " ".join(text.split()) if "  " in text else text.strip()
