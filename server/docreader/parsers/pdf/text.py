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
from typing import Any, NamedTuple

import pypdfium2.raw as pdfium_c

from server.docreader.parsers.pdf.geometry import Box, PageFrame

# PDFium marks a hyphen it removed when joining a word split across two lines with U+FFFE
# (older builds used U+0002); a soft hyphen means the same.
HYPHEN_MARK = "\ufffe"
_CLEAN = str.maketrans({**{i: " " for i in range(32)}, 2: HYPHEN_MARK, 0xAD: HYPHEN_MARK})
# translate() is slow per character; most lines need none of it, which a regex finds fast.
_NEEDS_CLEANING = re.compile("[\x00-\x1f\xad]")
# Where a word starts: after a space or after PDFium's hyphen mark.
_WORD_START = re.compile("[ \ufffe](?=[^ ])")
# Lines with more spaces than this are cut by position, not by testing every space.
_MAX_SPACES_TESTED = 12
# Runs further apart than this many font sizes are separate pieces (word spaces are ~0.3 em).
_GAP_EM = 0.8


class Piece(NamedTuple):
    box: Box
    text: str
    # Font size in points, scaled by the text and page matrices.
    size: float


def page_text(textpage: Any) -> str:
    """All text of the page in PDFium's order, lines separated by CRLF."""
    return str(textpage.get_text_range())


def visible_char_count(text: str) -> int:
    return len(text) - sum(text.count(space) for space in (" ", "\r", "\n", "\t"))


def read_pieces(textpage: Any, frame: PageFrame, text: str) -> list[Piece]:
    raw = textpage.raw
    reader = _PieceReader(raw, frame)
    identity = len(text) == pdfium_c.FPDFText_CountChars(raw)
    # The common case (one rectangle per line) is inlined: this loop runs for every line.
    count_rects, get_rect = pdfium_c.FPDFText_CountRects, pdfium_c.FPDFText_GetRect
    font_size, to_box = pdfium_c.FPDFText_GetFontSize, frame.box
    left, top, right, bottom = reader.doubles
    pieces: list[Piece] = []
    position = 0
    for line in text.split("\r\n"):
        start, position = position, position + len(line) + 2
        if not line or line.isspace():
            continue
        if identity:
            first, count = start, len(line)
        else:
            first = pdfium_c.FPDFText_GetCharIndexFromTextIndex(raw, start)
            last = pdfium_c.FPDFText_GetCharIndexFromTextIndex(raw, start + len(line) - 1)
            if first < 0 or last < first:
                continue
            count = last - first + 1
        rect_count = count_rects(raw, first, count)
        if rect_count != 1:
            if rect_count > 1:
                pieces.extend(reader.pieces(line, first, count, rect_count))
            continue
        get_rect(raw, 0, left, top, right, bottom)
        box = to_box(left.value, bottom.value, right.value, top.value)
        size = float(font_size(raw, first))
        if not 0.3 * size <= box.bottom - box.top <= 1.6 * size:
            size = reader.size(first, box)
        cleaned = clean_text(line)
        if cleaned:
            pieces.append(Piece(box, cleaned, size))
    return pieces


class _PieceReader:
    def __init__(self, raw: Any, frame: PageFrame) -> None:
        self._raw = raw
        self._frame = frame
        self.doubles = [ctypes.c_double() for _ in range(4)]
        self._left, self._top, self._right, self._bottom = self.doubles
        self._matrix = pdfium_c.FS_MATRIX()

    def pieces(self, line: str, first: int, count: int, rect_count: int) -> list[Piece]:
        """The pieces of a line covering several rectangles."""
        boxes = [self._rect(i) for i in range(rect_count)]
        size = self.size(first, boxes[0])
        groups = _group_runs(boxes, _GAP_EM * size)
        if len(groups) == 1:
            text = clean_text(line)
            return [Piece(groups[0][1], text, size)] if text else []
        cuts = self._generated_cuts(line, first, len(groups) - 1)
        if cuts is None:
            cuts = [0]
            for start, box in groups[1:]:
                cuts.append(self._cut(line, first, cuts[-1] + 1, start, box))
            cuts.append(len(line))
        pieces: list[Piece] = []
        first_height = groups[0][1].height
        for number, (_, box) in enumerate(groups):
            begin = cuts[number]
            # Runs as tall as the first share its size (table cells); others ask PDFium.
            same = abs(box.bottom - box.top - first_height) <= 0.2 * first_height
            text = clean_text(line[begin : cuts[number + 1]])
            if text:
                pieces.append(Piece(box, text, size if same else self.size(first + begin, box)))
        return pieces

    def _rect(self, index: int) -> Box:
        left, top, right, bottom = self.doubles
        pdfium_c.FPDFText_GetRect(self._raw, index, left, top, right, bottom)
        return self._frame.box(left.value, bottom.value, right.value, top.value)

    def size(self, index: int, box: Box) -> float:
        size = float(pdfium_c.FPDFText_GetFontSize(self._raw, index))
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
            if pdfium_c.FPDFText_IsGenerated(self._raw, first + index) == 1:
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
            if pdfium_c.FPDFText_CountRects(self._raw, first, middle) > rects_before:
                high = middle
            else:
                low = middle + 1
        return low - 1

    def _inside(self, index: int, box: Box, slack: float) -> bool:
        """Whether the origin of character ``index`` lies in ``box`` (widened by ``slack``)."""
        pdfium_c.FPDFText_GetCharOrigin(self._raw, index, self._left, self._top)
        x, y = self._frame.point(self._left.value, self._top.value)
        return box.x0 - slack <= x <= box.x1 and box.top - slack <= y <= box.bottom + slack


def _group_runs(boxes: list[Box], gap_limit: float) -> list[tuple[int, Box]]:
    """Consecutive rectangles on one baseline and close together, as (first index, box)."""
    groups: list[tuple[int, Box]] = [(0, boxes[0])]
    x0, top, x1, bottom = boxes[0]
    for index in range(1, len(boxes)):
        box = boxes[index]
        overlap = min(bottom, box.bottom) - max(top, box.top)
        if (
            overlap >= 0.5 * min(bottom - top, box.bottom - box.top)
            and box.x0 - x1 <= gap_limit
            and box.x1 > x0
        ):
            x0, top, x1, bottom = min(x0, box.x0), min(top, box.top), max(x1, box.x1), max(
                bottom, box.bottom
            )
            groups[-1] = (groups[-1][0], Box(x0, top, x1, bottom))
        else:
            groups.append((index, box))
            x0, top, x1, bottom = box
    return groups


def clean_text(text: str) -> str:
    """Control characters as spaces, hyphen marks unified, runs of spaces collapsed."""
    if _NEEDS_CLEANING.search(text):
        text = text.translate(_CLEAN)
    return " ".join(text.split()) if "  " in text else text.strip()
