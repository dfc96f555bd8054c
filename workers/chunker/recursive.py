"""Recursive splitting of one oversized span by an ordered list of separators.

A separator stays with the piece it ends, so every piece after the first starts right after
a separator (at the start of a word, line or sentence). Only a span with no separator at
all is cut at fixed positions.
"""

from __future__ import annotations

import itertools
import operator


def split_span(
    text: str, start: int, end: int, size: int, separators: tuple[str, ...]
) -> list[tuple[int, int]]:
    """Non-empty, whitespace-trimmed ``(start, end)`` pieces of ``text[start:end]``, each at
    most ``size`` long, in order."""
    # Trimmed as _trim does, keeping the trimmed text: it is what the separators are sought in.
    piece = text[start:end]
    span = piece.strip()
    if not span:
        return []
    start += len(piece) - len(piece.lstrip())
    end = start + len(span)
    if end - start <= size:
        return [(start, end)]
    for position, separator in enumerate(separators):
        # ``in`` rules out an absent separator without splitting (most are absent).
        cuts = _cuts_after(span, start, separator) if separator in span else None
        if cuts:
            pieces: list[tuple[int, int]] = []
            append = pieces.append
            bounds = [start, *cuts, end]
            # Earlier separators do not occur in this span, so only later ones can help.
            rest = separators[position + 1 :]
            for left, right in itertools.pairwise(bounds):
                if right - left <= size:
                    # Fits already (most pieces do): only trimmed (as _trim does), without
                    # recursing or a call.
                    piece = text[left:right]
                    kept = piece.strip()
                    if kept:
                        left += len(piece) - len(piece.lstrip())
                        append((left, left + len(kept)))
                else:
                    pieces.extend(split_span(text, left, right, size, rest))
            return pieces
    return _hard_cut(text, start, end, size)


def _cuts_after(span: str, start: int, separator: str) -> list[int]:
    """Positions just after each occurrence of ``separator`` inside ``span`` (which starts at
    ``start`` in the text; none at its end).

    ``str.split`` finds the occurrences (the same, left to right, without overlaps) and the
    positions are summed up without a Python step per occurrence: sentences are many."""
    end = start + len(span)
    parts = span.split(separator)
    step = len(separator)
    # Cut k comes after parts 0..k and k + 1 separators.
    lengths = itertools.accumulate(map(len, parts[:-1]))
    cuts = list(map(operator.add, lengths, range(start + step, end + step, step)))
    if cuts and cuts[-1] == end:  # the span ends with the separator: no cut there
        cuts.pop()
    return cuts


def _hard_cut(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    pieces = []
    for left in range(start, end, size):
        piece = _trim(text, left, min(left + size, end))
        if piece[0] < piece[1]:
            pieces.append(piece)
    return pieces


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without leading and trailing whitespace (empty at ``start`` if all is)."""
    piece = text[start:end]
    kept = piece.strip()
    if not kept:
        return start, start
    start += len(piece) - len(piece.lstrip())
    return start, start + len(kept)
