"""An HTML table as a grid of cells: row order, and rowspan/colspan filled with the cell's text.

Rows come from the table itself and its ``thead``/``tbody``/``tfoot`` sections (never from a
nested table), header section first and footer last, so the first row is the header row
whether the page marked it with ``<thead>``/``<th>`` or not. A spanning cell's text is
repeated in every grid position it covers, so each row reads on its own. Spans are clamped
(colspan to 1000, as browsers do; rowspan to the rows left) and the filled grid may grow to at
most ``_FILL_FACTOR`` times the real cell count, so a few hostile spans cannot blow it up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lxml import etree

_MAX_COLSPAN = 1000
_FILL_FACTOR = 20
_FILL_MINIMUM = 10_000
# One C-level check per table decides whether the span bookkeeping is needed at all.
_HAS_SPANS = etree.XPath("boolean(.//td[@colspan or @rowspan] | .//th[@colspan or @rowspan])")


def table_rows(table: Any) -> list[Any]:
    head: list[Any] = []
    body: list[Any] = []
    foot: list[Any] = []
    for child in table.iterchildren("tr", "thead", "tbody", "tfoot"):
        tag = child.tag
        if tag == "tr":
            body.append(child)
        else:
            rows = list(child.iterchildren("tr"))
            (head if tag == "thead" else foot if tag == "tfoot" else body).extend(rows)
    return head + body + foot


def row_cells(row: Any) -> list[Any]:
    return list(row.iterchildren("td", "th"))


def table_grid(
    table: Any, rows: list[Any], cell_text: Callable[[Any], str]
) -> list[list[str]]:
    cells = [row_cells(row) for row in rows]
    if not _HAS_SPANS(table):
        return [[cell_text(cell) for cell in row] for row in cells]
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


def _spans(cell: Any, rows_left: int) -> tuple[int, int]:
    colspan = cell.get("colspan")
    rowspan = cell.get("rowspan")
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
