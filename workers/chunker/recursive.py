"""Recursive splitting of one oversized span by an ordered list of separators.

A separator stays with the piece it ends, so every piece after the first starts right after
a separator (at the start of a word, line or sentence). Only a span with no separator at
all is cut at fixed positions.
"""

from __future__ import annotations

import itertools


def split_span(
    text: str, start: int, end: int, size: int, separators: tuple[str, ...]
) -> list[tuple[int, int]]:
    """Non-empty, whitespace-trimmed ``(start, end)`` pieces of ``text[start:end]``, each at
    most ``size`` long, in order."""
    start, end = _trim(text, start, end)
    if start >= end:
        return []
    if end - start <= size:
        return [(start, end)]
    for position, separator in enumerate(separators):
        cuts = _cuts_after(text, start, end, separator)
        if cuts:
            pieces: list[tuple[int, int]] = []
            bounds = [start, *cuts, end]
            # Earlier separators do not occur in this span, so only later ones can help.
            rest = separators[position + 1 :]
            for left, right in itertools.pairwise(bounds):
                if right - left <= size:
                    # Fits already (most pieces do): only trimmed, without recursing.
                    left, right = _trim(text, left, right)
                    if left < right:
                        pieces.append((left, right))
                else:
                    pieces.extend(split_span(text, left, right, size, rest))
            return pieces
    return _hard_cut(text, start, end, size)


def _cuts_after(text: str, start: int, end: int, separator: str) -> list[int]:
    """Positions just after each occurrence of ``separator`` inside the span (not at its end)."""
    cuts = []
    found = text.find(separator, start, end)
    while found != -1:
        cut = found + len(separator)
        if cut < end:
            cuts.append(cut)
        found = text.find(separator, cut, end)
    return cuts


def _hard_cut(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    pieces = []
    for left in range(start, end, size):
        piece = _trim(text, left, min(left + size, end))
        if piece[0] < piece[1]:
            pieces.append(piece)
    return pieces


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
