"""Tables without rules: rows of text whose cells line up on the same whitespace gaps.

Runs on the lines of one column region (so the other column of a two-column page never
joins a table drawn beside it). A table starts at a line with two or more pieces and grows
line by line while the lines stay close and keep the gaps: the x-ranges covered by text so
far form the columns, and a line whose piece bridges two columns, or sits closer than half
a font size to two of them, ends the table. A line inside the table may fill fewer cells
(a section label, an empty cell) but a table neither starts nor ends with a one-cell line.
A line set much closer to the one above than the table's rows are, filling only cells
filled above (or those and more, or only others: beside a wrapped cell) belongs to the same
row: one cell wrapped over several lines stays one cell. The first row is the header.

Prose must not become a table, so a candidate needs at least three rows with two cells or
more (half its rows or more), one with three, three columns filled in two rows or more, and
two of those holding short cells: bullets beside list text give two columns, the lines of a
two-column page two long ones, and a prose paragraph has no gaps shared by three lines.
"""

from __future__ import annotations

import statistics
from bisect import bisect_right
from collections.abc import Sequence
from itertools import pairwise

from server.docreader.markdown.tables import markdown_table
from server.docreader.parsers.pdf.blocks import Atom
from server.docreader.parsers.pdf.geometry import Box
from server.docreader.parsers.pdf.lines import finish_text, join_lines
from server.docreader.parsers.pdf.text import Piece

Row = list[Piece]

_MIN_ROWS = 3
_MIN_COLUMNS = 3
# Whitespace narrower than this many font sizes does not separate two columns.
_MIN_GAP_EM = 0.5
# Rows further apart than this many font sizes (bottom to top) are not one table.
_MAX_ROW_GAP_EM = 2.0
# A column whose median cell is at most this long holds values, not running text.
_SHORT_CELL_CHARS = 24
_MIN_SHORT_COLUMNS = 2
# A line closer than this share of the usual row pitch continues the row above.
_WRAP_PITCH = 0.75
# Rows taken into candidate runs per region, at most: a hostile page cannot go quadratic.
_MAX_ROWS_SCANNED = 5_000


def find_borderless_tables(rows: Sequence[Row]) -> tuple[list[Atom], list[Row]]:
    """The aligned-text tables among ``rows`` (top to bottom), and the rows left as text."""
    if not any(len(row) >= _MIN_COLUMNS for row in rows):
        return [], list(rows)
    atoms: list[Atom] = []
    rest: list[Row] = []
    start, budget = 0, _MAX_ROWS_SCANNED
    while start < len(rows):
        end, columns, scanned = _aligned_run(rows, start, budget)
        budget -= scanned
        atom = _table(rows[start:end], columns) if end - start >= _MIN_ROWS else None
        if atom is not None:
            atoms.append(atom)
            start = end
            continue
        # A table has a row of three cells: a run without one is skipped whole (the runs
        # starting inside it hold the same rows), one with one is tried again a row later
        # (a first row bridging two of the table's columns may have spoilt it).
        wide = any(len(row) >= _MIN_COLUMNS for row in rows[start:end])
        skip = start + 1 if wide or end <= start else end
        rest.extend(rows[start:skip])
        start = skip
    return atoms, rest


def _aligned_run(
    rows: Sequence[Row], start: int, budget: int
) -> tuple[int, list[tuple[float, float]], int]:
    """End (exclusive) of the longest run from ``start`` keeping its gaps, its columns, and
    how many rows it took (at most ``budget`` beyond the first).

    The run ends after its last row of two pieces or more, or after the wrapped rest of that
    row's cells; columns are the x-ranges its text covers, left to right.
    """
    first = rows[start]
    if len(first) < 2 or budget <= 0:
        return start, [], 0
    columns: list[tuple[float, float]] = []
    for piece in first:
        if not _add(columns, piece.box, _MIN_GAP_EM * piece.size):
            return start, [], 0
    # (end, columns) after each row taken; the run ends at the last row of several pieces.
    taken = [(start + 1, list(columns))]
    last = 0
    bottom = max(piece.box.bottom for piece in first)
    for index in range(start + 1, min(len(rows), start + 1 + budget)):
        row = rows[index]
        size = max(piece.size for piece in row)
        if _top(row) - bottom > _MAX_ROW_GAP_EM * size:
            break
        if not all(_add(columns, piece.box, _MIN_GAP_EM * piece.size) for piece in row):
            break
        bottom = max(piece.box.bottom for piece in row)
        taken.append((index + 1, list(columns)))
        if len(row) >= 2:
            last = len(taken) - 1
    if last >= 2:
        tops = [_top(row) for row in rows[start : start + last + 1]]
        pitch = statistics.median(below - above for above, below in pairwise(tops))
        while last + 1 < len(taken):
            end = taken[last][0]
            if _top(rows[end]) - _top(rows[end - 1]) > _WRAP_PITCH * pitch:
                break
            last += 1
    end, columns = taken[last]
    return end, columns, len(taken)


def _top(row: Row) -> float:
    return min(piece.box.top for piece in row)


def _add(columns: list[tuple[float, float]], box: Box, gap: float) -> bool:
    """Widen the column ``box`` falls in (or add one); False when it bridges two columns."""
    starts = [x0 for x0, _ in columns]
    # Columns reaching to within ``gap`` of the box: those starting before its end...
    last = bisect_right(starts, box.x1 + gap) - 1
    first = last
    # ...and ending after its start (columns are disjoint and sorted, so a contiguous run).
    while first >= 0 and columns[first][1] >= box.x0 - gap:
        first -= 1
    first += 1
    if last - first >= 1:
        return False
    if last == first:
        x0, x1 = columns[first]
        columns[first] = (min(x0, box.x0), max(x1, box.x1))
    else:
        columns.insert(last + 1, (box.x0, box.x1))
    return True


def _table(rows: Sequence[Row], columns: list[tuple[float, float]]) -> Atom | None:
    starts = [x0 for x0, _ in columns]
    lines: list[list[str]] = []
    for row in rows:
        line = [""] * len(columns)
        for piece in row:  # left to right
            column = max(bisect_right(starts, piece.box.x0) - 1, 0)
            line[column] = f"{line[column]} {piece.text}" if line[column] else piece.text
        lines.append(line)
    if not _tabular(lines):
        return None
    cells = _join_wrapped(lines, [_top(row) for row in rows])
    box = Box(
        columns[0][0],
        min(piece.box.top for piece in rows[0]),
        columns[-1][1],
        max(piece.box.bottom for piece in rows[-1]),
    )
    return Atom(box, markdown_table([[finish_text(cell) for cell in line] for line in cells]))


def _join_wrapped(lines: list[list[str]], tops: list[float]) -> list[list[str]]:
    """Lines set much closer than the table's rows, filling only cells filled just above, or
    those and more, or only others (the cells beside a wrapped one sit on its middle or last
    line), are one row of the table."""
    pitches = [below - above for above, below in pairwise(tops)]
    usual = statistics.median(pitches)
    rows = [lines[0]]
    for line, pitch in zip(lines[1:], pitches, strict=True):
        above = rows[-1]
        mine = {k for k, cell in enumerate(line) if cell}
        theirs = {k for k, cell in enumerate(above) if cell}
        if pitch <= _WRAP_PITCH * usual and (mine <= theirs or theirs <= mine or not mine & theirs):
            rows[-1] = [join_lines((a, b)) for a, b in zip(above, line, strict=True)]
        else:
            rows.append(line)
    return rows


def _tabular(cells: list[list[str]]) -> bool:
    """Whether the aligned run is a table rather than list items or columns of prose."""
    counts = [sum(1 for cell in line if cell) for line in cells]
    multi = sum(1 for count in counts if count >= 2)
    if multi < _MIN_ROWS or 2 * multi < len(cells) or max(counts) < _MIN_COLUMNS:
        return False
    filled = [[line[column] for line in cells if line[column]] for column in range(len(cells[0]))]
    used = [column for column in filled if len(column) >= 2]
    short = sum(1 for column in used if statistics.median(map(len, column)) <= _SHORT_CELL_CHARS)
    return len(used) >= _MIN_COLUMNS and short >= _MIN_SHORT_COLUMNS
