"""Ruled tables: a grid of horizontal and vertical rules becomes a Markdown table.

Rules that touch form connected grids; a grid with at least two columns is a table whose
cells are the spaces between its distinct rule positions. A column boundary missing inside a
row is a merged cell (its text goes to the first column of the span). Text pieces are placed
in cells with a few bisections each; when a piece straddles a boundary (one text object drawn
across several cells) the cells are read from PDFium by rectangle instead. A ruled row holding
several lines that each fill two or more cells (a table ruled only around its edge) is split
into one row per line. A grid with fewer than two filled cells, or a "cell" holding a page of
prose, is a frame around text, not a table, and its text stays in the flow.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import pairwise
from typing import Any, NamedTuple, TypeVar

from server.docreader.markdown.tables import markdown_table
from server.docreader.parsers.pdf.blocks import Atom
from server.docreader.parsers.pdf.geometry import Box, PageFrame, union_all
from server.docreader.parsers.pdf.lines import finish_text, group_lines, group_rows, join_lines
from server.docreader.parsers.pdf.objects import Rule
from server.docreader.parsers.pdf.text import Piece

_TOLERANCE = 2.0
_MAX_PAIRS = 250_000
# Grids beyond this many on one page are drawings (maps, forms of boxes), not tables.
_MAX_TABLES = 100
_MIN_CELLS_FILLED = 2
_MAX_CELL_CHARS = 2_000
# Lines of text closer than this share of the widest spacing in a ruled row are one row.
_WRAP_PITCH = 0.75

Cell = tuple[int, int]


class _HLine(NamedTuple):
    y: float
    x0: float
    x1: float


class _VLine(NamedTuple):
    x: float
    y0: float
    y1: float


_Line = TypeVar("_Line", _HLine, _VLine)


def find_tables(
    rules: Sequence[Rule], pieces: list[Piece], textpage: Any, frame: PageFrame
) -> tuple[list[Atom], list[Piece]]:
    """The tables drawn with rules on the page, and the pieces left for the text flow."""
    across: list[_HLine] = []
    down: list[_VLine] = []
    for (x0, top, x1, bottom), horizontal in rules:
        if horizontal:
            across.append(_HLine((top + bottom) / 2, x0, x1))
        else:
            down.append(_VLine((x0 + x1) / 2, top, bottom))
    horizontals, verticals = _merge(across), _merge(down)
    if len(horizontals) < 2 or len(verticals) < 3 or len(horizontals) * len(verticals) > _MAX_PAIRS:
        return [], pieces
    atoms: list[Atom] = []
    for grid in _grids(horizontals, verticals)[:_MAX_TABLES]:
        x0, top, x1, bottom = grid.box
        inside: list[Piece] = []
        outside: list[Piece] = []
        # Pieces centred in the grid (or within 1 pt of it), comparing doubled coordinates.
        left, right, upper, lower = 2 * x0 - 2, 2 * x1 + 2, 2 * top - 2, 2 * bottom + 2
        for piece in pieces:
            piece_x0, piece_top, piece_x1, piece_bottom = piece.box
            if left <= piece_x0 + piece_x1 <= right and upper <= piece_top + piece_bottom <= lower:
                inside.append(piece)
            else:
                outside.append(piece)
        rows = grid.rows(inside, textpage, frame) if inside else None
        if rows is not None:
            atoms.append(Atom(grid.box, markdown_table(rows)))
            pieces = outside
    return atoms, pieces


class _Grid:
    def __init__(self, xs: list[float], ys: list[float], verticals: list[_VLine]) -> None:
        self.xs, self.ys = xs, ys
        self.box = Box(xs[0], ys[0], xs[-1], ys[-1])
        # Per row, the column indexes where a cell starts (a missing rule merges cells).
        self.starts = [[0] for _ in ys[1:]]
        middles = [(top + bottom) / 2 for top, bottom in pairwise(ys)]
        for column, x in enumerate(xs[1:-1], start=1):
            spans = [
                (v.y0 - _TOLERANCE, v.y1 + _TOLERANCE)
                for v in verticals
                if abs(v.x - x) <= _TOLERANCE
            ]
            for row, middle in enumerate(middles):
                for low, high in spans:
                    if low <= middle <= high:
                        self.starts[row].append(column)
                        break

    def rows(self, pieces: list[Piece], textpage: Any, frame: PageFrame) -> list[list[str]] | None:
        placed = self._place(pieces)
        if placed is not None and self._split_text_rows(placed):
            placed = self._place(pieces)
        if placed is None:
            cells = self._cells_from_textpage(textpage, frame)
        else:
            cells = self._cells_from_pieces(placed)
        filled = sum(1 for row in cells for cell in row if cell)
        if filled < _MIN_CELLS_FILLED or any(len(c) > _MAX_CELL_CHARS for r in cells for c in r):
            return None
        return cells

    def _place(self, pieces: list[Piece]) -> dict[Cell, list[Piece]] | None:
        """The pieces of each cell; None when a piece reaches into two cells."""
        xs, ys, all_starts = self.xs, self.ys, self.starts
        # Bisecting between the first and last boundary keeps every index inside the grid.
        x_end, y_end = len(xs) - 1, len(ys) - 1
        placed: dict[Cell, list[Piece]] = {}
        for piece in pieces:
            x0, top, x1, bottom = piece.box
            row = bisect_right(ys, top + _TOLERANCE, 1, y_end) - 1
            if row != bisect_right(ys, bottom - _TOLERANCE, 1, y_end) - 1:
                return None
            starts = all_starts[row]
            first = bisect_right(xs, x0 + _TOLERANCE, 1, x_end) - 1
            last = bisect_right(xs, x1 - _TOLERANCE, 1, x_end) - 1
            column = starts[bisect_right(starts, first) - 1]
            if last > first and starts[bisect_right(starts, last) - 1] != column:
                return None
            placed.setdefault((row, column), []).append(piece)
        return placed

    def _split_text_rows(self, placed: dict[Cell, list[Piece]]) -> bool:
        """Split ruled rows holding several lines that each fill two or more cells.

        A wrapped cell adds lines filling one cell and stays one cell (see ``_text_rows``).
        True when any row was split (the pieces must then be placed again).
        """
        crowded = {row for (row, _), members in placed.items() if len(members) > 1}
        if not crowded:
            return False
        ys, starts, split = [self.ys[0]], [], False
        for row, bottom in enumerate(self.ys[1:]):
            if row in crowded:
                cells = {
                    piece: cell
                    for cell, members in placed.items()
                    if cell[0] == row
                    for piece in members
                }
                lines = _text_rows(group_rows(cells), cells)
                spread = [len({cells[piece] for piece in line}) for line in lines]
                if len(lines) > 1 and 2 * sum(1 for n in spread if n >= 2) >= len(lines):
                    boxes = [union_all([piece.box for piece in line]) for line in lines]
                    ys.extend((a.bottom + b.top) / 2 for a, b in pairwise(boxes))
                    starts.extend([self.starts[row]] * (len(lines) - 1))
                    split = True
            ys.append(bottom)
            starts.append(self.starts[row])
        self.ys, self.starts = ys, starts
        return split

    def _empty(self) -> list[list[str]]:
        return [[""] * (len(self.xs) - 1) for _ in self.ys[1:]]

    def _cells_from_pieces(self, placed: dict[Cell, list[Piece]]) -> list[list[str]]:
        cells = self._empty()
        for (row, column), members in placed.items():
            if len(members) == 1:
                cells[row][column] = finish_text(members[0].text)
            else:
                cells[row][column] = join_lines(line.text for line in group_lines(members))
        return cells

    def _cells_from_textpage(self, textpage: Any, frame: PageFrame) -> list[list[str]]:
        cells = self._empty()
        for row, (top, bottom) in enumerate(pairwise(self.ys)):
            starts = self.starts[row]
            ends = [*starts[1:], len(self.xs) - 1]
            for start, end in zip(starts, ends, strict=True):
                box = Box(self.xs[start] + 0.5, top + 0.5, self.xs[end] - 0.5, bottom - 0.5)
                text = str(textpage.get_text_bounded(*frame.pdf_rect(box)))
                cells[row][start] = join_lines(text.replace("\r", "\n").split("\n"))
        return cells


def _text_rows(lines: list[list[Piece]], cells: dict[Piece, Cell]) -> list[list[Piece]]:
    """The lines of one ruled row grouped into the rows of text they belong to.

    A line filling only some of the cells of its row so far, or those and more, or only
    other cells (the cells beside a wrapped one sit at its top, middle or bottom line), is
    part of that row. Evenly set lines of which two in a row fill the same cells are the rows
    of a table ruled only around its edge; where the spacing varies, a wrapped line is also
    set closer than the widest spacing.
    """
    filled = [frozenset(cells[piece] for piece in line) for line in lines]
    tops = [min(piece.box.top for piece in line) for line in lines]
    pitches = [below - above for above, below in pairwise(tops)]
    widest = max(pitches, default=0.0)
    even = not pitches or min(pitches) >= _WRAP_PITCH * widest
    if even and len(lines) > 2 and any(a == b and len(a) > 1 for a, b in pairwise(filled)):
        return lines
    rows = [list(lines[0])]
    row_cells = set(filled[0])
    for line, mine, pitch in zip(lines[1:], filled[1:], pitches, strict=True):
        same_row = (
            mine < row_cells
            or row_cells < mine
            or not mine & row_cells
            or (mine == row_cells and len(mine) == 1)
        )
        if same_row and (even or pitch <= _WRAP_PITCH * widest):
            rows[-1].extend(line)
            row_cells |= mine
        else:
            rows.append(list(line))
            row_cells = set(mine)
    return rows


def _grids(horizontals: list[_HLine], verticals: list[_VLine]) -> list[_Grid]:
    parent = list(range(len(horizontals) + len(verticals)))

    def find(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    offset = len(horizontals)
    # Verticals are sorted by x (see _merge): bisect to those within each rule's extent.
    positions = [v.x for v in verticals]
    for i, (y, x0, x1) in enumerate(horizontals):
        root = find(i)
        start = bisect_left(positions, x0 - _TOLERANCE)
        end = bisect_right(positions, x1 + _TOLERANCE)
        for j in range(start, end):
            _, y0, y1 = verticals[j]
            if y0 - _TOLERANCE <= y <= y1 + _TOLERANCE:
                other = find(offset + j)
                if other != root:
                    parent[other] = root
    components: dict[int, tuple[list[_HLine], list[_VLine]]] = {}
    for i, h in enumerate(horizontals):
        components.setdefault(find(i), ([], []))[0].append(h)
    for j, v in enumerate(verticals):
        components.setdefault(find(offset + j), ([], []))[1].append(v)
    grids: list[_Grid] = []
    for hs, vs in components.values():
        ys = _distinct([h.y for h in hs])
        xs = _distinct([v.x for v in vs])
        if len(ys) >= 2 and len(xs) >= 3:
            grids.append(_Grid(xs, ys, vs))
    return grids


def _distinct(values: list[float]) -> list[float]:
    result: list[float] = []
    for value in sorted(values):
        if not result or value - result[-1] > _TOLERANCE:
            result.append(value)
    return result


def _merge(lines: list[_Line]) -> list[_Line]:
    """Collinear rules that touch or overlap, as one rule (lines: position, start, end)."""
    merged: list[_Line] = []
    for line in sorted(lines):
        if merged:
            last = merged[-1]
            if abs(line[0] - last[0]) <= _TOLERANCE and line[1] <= last[2] + _TOLERANCE:
                # Sorted by position first, a later segment may still start earlier.
                start, end = min(last[1], line[1]), max(last[2], line[2])
                merged[-1] = type(last)(last[0], start, end)
                continue
        merged.append(line)
    return merged
