"""Reading order: a page is cut into single-column regions, read top to bottom.

A gutter is a vertical strip crossed by (almost) nothing, with column-like content on both
sides: several lines of prose, or a table or figure, overlapping vertically. Items crossing the
gutter (a title, a full-width table) split the page into sections; each section reads its left
side fully, then its right side, and the crossing items sit between sections in top-to-bottom
order. Both sides are cut again recursively, so three columns work too. Short aligned cells
(label/value lists, tables without rules) never look like prose columns, so they keep
line-by-line order.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from server.docreader.parsers.pdf.blocks import Atom
from server.docreader.parsers.pdf.text import Piece

Item = Piece | Atom

# A gutter is at least this many body font sizes wide (word gaps are a fraction of one).
_GUTTER_EM = 1.0
_MIN_GUTTER = 6.0
# Prose lines: a side of a gutter needs this many of them, this long (median characters).
_MIN_COLUMN_LINES = 2
_MIN_PROSE_CHARS = 18
# Share of the region's pieces allowed to cross a gutter (titles, full-width rules).
_CROSSING_SHARE = 0.1
_MIN_SIDE_OVERLAP = 0.3
# Cuts nest at most this deep (columns within columns); a hostile page cannot recurse further.
_MAX_DEPTH = 12


def reading_regions(items: Sequence[Item], depth: int = 0) -> list[list[Item]]:
    """The items grouped into regions in reading order; each region is one column's stack."""
    if len(items) < 2:
        return [list(items)] if items else []
    gutter = _find_gutter(items) if depth < _MAX_DEPTH else None
    if gutter is None:
        return [list(items)]
    start, end = gutter
    middle = (start + end) / 2
    # An item reaching into the strip from one side belongs to that side; only an item
    # spanning the whole strip crosses it.
    crossing = sorted(
        (i for i in items if i.box.x0 < start and i.box.x1 > end), key=lambda i: i.box.top
    )
    sides = [i for i in items if not (i.box.x0 < start and i.box.x1 > end)]
    left = [i for i in sides if i.box.x0 + i.box.x1 < 2 * middle]
    right = [i for i in sides if i.box.x0 + i.box.x1 >= 2 * middle]
    regions: list[list[Item]] = []
    pending: list[Item] = []
    for item in crossing:
        before_left = [i for i in left if i.box.center_y < item.box.top]
        before_right = [i for i in right if i.box.center_y < item.box.top]
        if before_left or before_right:
            if pending:
                regions.append(pending)
                pending = []
            regions.extend(reading_regions(before_left, depth + 1))
            regions.extend(reading_regions(before_right, depth + 1))
            left = [i for i in left if i.box.center_y >= item.box.top]
            right = [i for i in right if i.box.center_y >= item.box.top]
        pending.append(item)
    if pending:
        regions.append(pending)
    regions.extend(reading_regions(left, depth + 1))
    regions.extend(reading_regions(right, depth + 1))
    return regions


def _find_gutter(items: Sequence[Item]) -> tuple[float, float] | None:
    sizes = [i.size for i in items if isinstance(i, Piece)]
    min_width = max(_MIN_GUTTER, _GUTTER_EM * statistics.median(sizes)) if sizes else _MIN_GUTTER
    allowed = int(len(items) * _CROSSING_SHARE)
    best: tuple[float, float] | None = None
    for start, end in _sparse_strips(items, allowed):
        if end - start < min_width or (best and end - start <= best[1] - best[0]):
            continue
        left = [i for i in items if i.box.x1 <= start]
        right = [i for i in items if i.box.x0 >= end]
        if _column_like(left) and _column_like(right) and _side_by_side(left, right):
            best = (start, end)
    return best


def _sparse_strips(items: Sequence[Item], allowed: int) -> list[tuple[float, float]]:
    """Maximal x-intervals inside the items' extent covered by at most ``allowed`` items."""
    events = sorted([(i.box.x0, 1) for i in items] + [(i.box.x1, -1) for i in items])
    strips: list[tuple[float, float]] = []
    depth, open_at, seen_content = 0, None, False
    for x, change in events:
        depth += change
        if depth <= allowed and open_at is None and seen_content:
            open_at = x
        elif depth > allowed:
            if open_at is not None and x > open_at:
                strips.append((open_at, x))
            open_at = None
            seen_content = True
    return strips


def _column_like(side: list[Item]) -> bool:
    if any(isinstance(item, Atom) for item in side):
        return True
    texts = [item.text for item in side if isinstance(item, Piece)]
    return len(texts) >= _MIN_COLUMN_LINES and statistics.median(map(len, texts)) >= (
        _MIN_PROSE_CHARS
    )


def _side_by_side(left: list[Item], right: list[Item]) -> bool:
    top_l, bottom_l = min(i.box.top for i in left), max(i.box.bottom for i in left)
    top_r, bottom_r = min(i.box.top for i in right), max(i.box.bottom for i in right)
    overlap = min(bottom_l, bottom_r) - max(top_l, top_r)
    return overlap >= _MIN_SIDE_OVERLAP * min(bottom_l - top_l, bottom_r - top_r)
