"""Fenced code blocks bigger than a chunk, cut between lines into pieces that are each a fence.

A piece that does not start where its fence starts gets the fence's opening line again in
front (```` ```python ````, ``~~~``, the same marker), and a chunk that ends inside the fence
gets a closing line (``\\n`` and the marker) after it, so every chunk renders as code in its
language. The pieces cover the fence with a single line break between two of them, so the
offsets name the source exactly and the text can be rebuilt from them (``chunks.stitching``).

A piece, with what it adds, is at most the chunk size. A code line that does not fit alone
is cut after the last space or tab that keeps the piece within the size, or else at the size
(long minified or base64 lines have no spaces); the rest of the line then starts the next
piece, directly after, with no gap. Only when the size cannot hold the opening and closing
lines and one character of code does the fence stay whole (an oversize chunk, recorded).
"""

from __future__ import annotations

import bisect
import itertools
import operator
from dataclasses import dataclass

from workers.chunker.blocks import closing_fence, fence_opening


@dataclass(frozen=True, slots=True)
class FencePiece:
    """``text[start:end]`` of a fence; ``opener`` ("" or the opening line and a line break)
    goes in front of a chunk starting here, ``closer`` ("" or a line break and the marker)
    after a chunk ending here."""

    start: int
    end: int
    opener: str
    closer: str


@dataclass(frozen=True, slots=True)
class CodeFence:
    """A whole fenced code block of the text: its span, the opening line a continuation
    repeats (with its line break) and the closing line a cut adds (after a line break)."""

    start: int
    end: int
    opener: str
    closer: str

    @property
    def marker(self) -> str:
        return self.closer[1:]

    def pieces(self, text: str, lo: int, hi: int, size: int) -> list[FencePiece] | None:
        """``text[lo:hi]`` (the fence, or the part of it a parent chunk holds) cut into
        pieces; None when the size cannot hold a piece of it."""
        if size - len(self.opener) - len(self.closer) < 1:
            return None
        # Where each line of the part ends (at its line break, or at the part's end).
        lines = text[lo:hi].split("\n")
        ends = list(map(operator.add, itertools.accumulate(map(len, lines)), itertools.count(lo)))
        pieces: list[FencePiece] = []
        start = lo
        while start < hi:
            opener = "" if start == self.start else self.opener
            if hi - start + len(opener) + (0 if hi == self.end else len(self.closer)) <= size:
                pieces.append(FencePiece(start, hi, opener, "" if hi == self.end else self.closer))
                break
            limit = start + size - len(opener) - len(self.closer)
            # The last whole line that fits; its line break is the gap to the next piece.
            line = bisect.bisect_right(ends, limit) - 1
            # A piece ends after a line of code, not inside the opening line.
            lowest = max(start + 1, start if start > self.start else start + len(self.opener))
            if (
                line > 0
                and ends[line - 1] >= lowest
                and hi == self.end
                and is_closing_line(text[ends[line] + 1 : hi], self.marker)
            ):
                line -= 1  # not a last piece of only the closing line: an empty code block
            if line >= 0 and ends[line] >= lowest and text[start : ends[line]].strip():
                end, following = ends[line], ends[line] + 1
            else:
                end = _cut_in_line(text, lowest - 1, limit)
                following = end
            pieces.append(FencePiece(start, end, opener, self.closer))
            start = following
        return pieces


def code_fence(text: str, start: int, end: int) -> CodeFence:
    """The FENCE block ``text[start:end]`` with its opening and closing lines."""
    first_line_end = text.find("\n", start, end)
    first_line = text[start : end if first_line_end < 0 else first_line_end].rstrip("\r")
    match = fence_opening(first_line)
    marker = match.group("fence") if match is not None else "```"
    return CodeFence(start, end, first_line + "\n", "\n" + marker)


def is_closing_line(line: str, marker: str) -> bool:
    """Whether ``line`` closes a fence opened with ``marker``."""
    return closing_fence(marker).fullmatch(line) is not None


def _cut_in_line(text: str, low: int, limit: int) -> int:
    """Where to cut a line too long for a piece: after the last space or tab in
    ``(low, limit]``, or at ``limit``; never at or before ``low``."""
    found = _last_blank(text, low + 1, limit)
    return found if found > low else limit


def _last_blank(text: str, low: int, limit: int) -> int:
    """The position right after the last space or tab of ``text[low:limit]``, or -1."""
    window = text[low:limit]
    position = max(window.rfind(" "), window.rfind("\t"))
    return -1 if position < 0 else low + position + 1
