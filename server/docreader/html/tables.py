"""An HTML table as a grid of cells: row order, and rowspan/colspan filled with the cell's text.

Rows come from the table's ``thead``/``tbody``/``tfoot`` sections (the parser puts every row
in one; never from a nested table), header section first and footer last, so the first row
is the header row whether the page marked it with ``<thead>``/``<th>`` or not. A spanning
cell's text is repeated in every grid position it covers, so each row reads on its own. Spans
are clamped (colspan to 1000, as browsers do; rowspan to the rows left) and the filled grid
may grow to at most ``_FILL_FACTOR`` times the real cell count, so a few hostile spans cannot
blow it up.

Most tables hold one piece of text in every cell; ``text_grid`` reads those with one call to
lexbor, and the converter walks the others cell by cell.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from selectolax.lexbor import LexborNode

from server.docreader.html.tags import tag_id, tag_ids
from server.docreader.html.whitespace import PART_SEPARATOR, is_collapsed

_MAX_COLSPAN = 1000
_FILL_FACTOR = 20
_FILL_MINIMUM = 10_000

_TR, _THEAD, _TBODY, _TFOOT = map(tag_id, ("tr", "thead", "tbody", "tfoot"))
_CELLS = tag_ids(("td", "th"))
_SECTIONS = (_THEAD, _TBODY, _TFOOT)
_NO_TEXT = tag_ids(("colgroup", "col"))


def table_rows(table: LexborNode) -> list[LexborNode]:
    head: list[LexborNode] = []
    body: list[LexborNode] = []
    foot: list[LexborNode] = []
    for child in table.iter():
        tag = child.tag_id
        if tag == _TR:
            body.append(child)
        elif tag in _SECTIONS:
            rows = [row for row in child.iter() if row.tag_id == _TR]
            (head if tag == _THEAD else foot if tag == _TFOOT else body).extend(rows)
    return head + body + foot


def row_cells(row: LexborNode) -> list[LexborNode]:
    return [cell for cell in row.iter() if cell.tag_id in _CELLS]


def text_grid(table: LexborNode) -> list[list[str]] | None:
    """The rows of cell text of a table whose every cell holds one piece of text (no element,
    comment or span, not blank), whitespace collapsed; None for any other table.

    One pass over the table's elements counts the cells of each row and checks them; one
    ``text()`` call then returns all cell texts, joined by ``PART_SEPARATOR``. Between cells
    and rows the parser leaves only whitespace (other text is moved out of the table), which
    ``skip_empty`` drops, and no two text nodes are ever side by side (see ``text_only``), so
    there is one piece per cell exactly when no cell is blank."""
    starts: list[int] = []  # per row, in document order: the index of its first piece
    heads: list[int] = []  # the rows (indexes into starts) of thead and tfoot sections
    feet: list[int] = []
    section: list[int] | None = None  # where the current section's rows go (None: tbody)
    count = 0  # cells so far
    # Module constants as locals: this loop runs once per cell of the page.
    cells, tr, sections, no_text = _CELLS, _TR, _SECTIONS, _NO_TEXT
    elements = table.traverse()  # elements and comments, no text nodes
    next(elements)  # the table itself
    for element in elements:
        tag = element.tag_id
        if tag in cells:
            attributes = element.attributes  # an empty dict for most cells: cheap to ask
            if attributes and ("colspan" in attributes or "rowspan" in attributes):
                return None
            count += 1
        elif tag == tr:
            if section is not None:
                section.append(len(starts))
            starts.append(count)
        elif tag in sections:
            section = heads if tag == _THEAD else feet if tag == _TFOOT else None
        elif tag not in no_text:  # an element inside a cell, a caption, a comment
            return None
    text = table.text(separator=PART_SEPARATOR, skip_empty=True)
    pieces = text.split(PART_SEPARATOR)
    if not text or len(pieces) != count:
        return None
    if not is_collapsed(text, parts=count):
        pieces = [" ".join(piece.split()) for piece in pieces]
    starts.append(count)
    grid = [pieces[start:end] for start, end in pairwise(starts)]
    if heads or feet:  # header rows first, footer rows last, wherever they were written
        outer = set(heads + feet)
        body = [row for index, row in enumerate(grid) if index not in outer]
        grid = [grid[index] for index in heads] + body + [grid[index] for index in feet]
    return grid


def table_grid(rows: list[LexborNode], cell_text: Callable[[LexborNode], str]) -> list[list[str]]:
    cells = [row_cells(row) for row in rows]
    budget = max(_FILL_FACTOR * sum(map(len, cells)), _FILL_MINIMUM)
    grid: list[list[str]] = []
    # Column → the text of a cell spanning down into later rows, and how many rows it has left.
    carried: dict[int, tuple[str, int]] = {}
    for index, row_elements in enumerate(cells):
        rows_left = len(cells) - index
        row: list[str] = []
        for element in row_elements:
            while len(row) in carried:
                row.append(_take(carried, len(row)))
            text = cell_text(element)
            colspan, rowspan = _spans(element, rows_left)
            if colspan * rowspan > budget:
                colspan = rowspan = 1
            budget -= colspan * rowspan
            for _ in range(colspan):
                if rowspan > 1:
                    carried[len(row)] = (text, rowspan - 1)
                row.append(text)
        if carried:
            last = max(carried)
            while len(row) <= last:
                row.append(_take(carried, len(row)) if len(row) in carried else "")
        grid.append(row)
    return grid


def _take(carried: dict[int, tuple[str, int]], column: int) -> str:
    text, left = carried[column]
    if left > 1:
        carried[column] = (text, left - 1)
    else:
        del carried[column]
    return text


def _spans(cell: LexborNode, rows_left: int) -> tuple[int, int]:
    attributes = cell.attributes
    colspan = attributes.get("colspan")
    rowspan = attributes.get("rowspan")
    if colspan is None and rowspan is None:
        return 1, 1
    columns = min(max(_number(colspan), 1), _MAX_COLSPAN)
    # rowspan="0" spans to the end of the table.
    return columns, min(_number(rowspan) or rows_left, rows_left)


def _number(value: str | None) -> int:
    if not value:
        return 1
    try:
        return max(int(value.strip()), 0)
    except ValueError:
        return 1
