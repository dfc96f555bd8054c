"""A docx table → rows of cell text, one string per grid column.

Merged cells are filled so every row has a value in every column it covers: a horizontally
merged cell (w:gridSpan, or the legacy w:hMerge) repeats across its columns, and a vertically
merged continuation cell (w:vMerge without "restart") repeats the value of the cell above.
Cells skipped at the start of a row (w:gridBefore) are left empty. A table nested in a cell is
flattened to text: its cells joined by "; ", its rows by line breaks.

A table without nested tables is read from the nodes the body pass already met (``TABLE_TAGS``
in document order), which is several times faster than walking its cells again; a table with
nested tables is walked element by element.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.docreader.parsers.office.wordml import W_VAL, WRAPPERS, Element, W, children, int_val

_TR, _TC, _P, _TBL = W + "tr", W + "tc", W + "p", W + "tbl"
_TCPR, _GRID_SPAN, _GRID_BEFORE = W + "tcPr", W + "gridSpan", W + "gridBefore"
_VMERGE, _HMERGE = W + "vMerge", W + "hMerge"
_PROPERTY_CHANGES = frozenset({W + "tcPrChange", W + "trPrChange"})
# What the body pass must also meet for a table to be read from its nodes.
TABLE_TAGS = (_TR, _TC, _GRID_SPAN, _GRID_BEFORE, _VMERGE, _HMERGE, *_PROPERTY_CHANGES)
_NESTED_CELL_SEPARATOR = "; "
# Where a table cell's own paragraphs sit: in the cell, or in a content control in it.
_CELL_CONTENT = frozenset({_TC, *WRAPPERS})
_V_CONTINUE, _H_CONTINUE = "vertical", "horizontal"
# Word tables have at most 63 columns; a larger span or skip is hostile and is capped.
_MAX_SPAN = 64

# Reads a paragraph's text: from its element alone, or with its scanned descendants.
ElementText = Callable[[Element], str]
ScannedText = Callable[[Element, Sequence[Element]], str]


class _Grid:
    """Rows being built, with merged cells filled from the left or from above."""

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self._above: dict[int, str] = {}
        self._row: list[str] = []

    def new_row(self) -> None:
        self._row = []
        self.rows.append(self._row)

    def skip_columns(self, count: int) -> None:
        self._row.extend([""] * min(max(count, 0), _MAX_SPAN))

    def cell(self, text: str, span: int, merge: str) -> None:
        row, column = self._row, len(self._row)
        if merge == _V_CONTINUE:
            text = self._above.get(column, "")
        elif merge == _H_CONTINUE and row:
            text = row[-1]
        for offset in range(min(max(span, 1), _MAX_SPAN)):
            row.append(text)
            self._above[column + offset] = text


def rows_from_nodes(
    nodes: Sequence[Element], paragraph_text: ScannedText
) -> list[list[str]] | None:
    """The rows of a table from its descendants among the body pass's tags (TABLE_TAGS and the
    paragraph SCAN_TAGS); None when it has nested tables, whose structure the flat node
    sequence does not show."""
    grid = _Grid()
    lines: list[str] = []
    paragraph: Element | None = None
    scanned: list[Element] = []
    span, merge, in_cell = 1, "", False
    skip: set[Element] | None = None

    def end_paragraph() -> None:
        if paragraph is not None:
            text = paragraph_text(paragraph, scanned).strip()
            if text:
                lines.append(text)
        scanned.clear()

    def end_cell() -> None:
        end_paragraph()
        if in_cell:
            grid.cell("\n".join(lines), span, merge)
        lines.clear()

    for node in nodes:
        if skip is not None and node in skip:
            continue
        tag = node.tag
        if tag == _P:
            if node.getparent().tag in _CELL_CONTENT:
                end_paragraph()
                paragraph = node
            else:
                # A paragraph in a text box: part of the paragraph holding the text box.
                scanned.append(node)
        elif tag == _TC:
            end_cell()
            span, merge, in_cell, paragraph = 1, "", True, None
        elif tag == _TR:
            end_cell()
            in_cell, paragraph = False, None
            grid.new_row()
        elif tag == _GRID_SPAN:
            span = int_val(node, 1)
        elif tag in (_VMERGE, _HMERGE):
            if node.get(W_VAL, "continue") == "continue":
                merge = _V_CONTINUE if tag == _VMERGE else _H_CONTINUE
        elif tag == _GRID_BEFORE:
            grid.skip_columns(int_val(node))
        elif tag == _TBL:
            return None
        elif tag in _PROPERTY_CHANGES:
            # Earlier, tracked-change properties: not the cell's current layout.
            skip = skip if skip is not None else set()
            skip.update(node.iterdescendants())
        else:
            scanned.append(node)
    end_cell()
    return grid.rows


class TableReader:
    """The element-by-element walk, for tables with nested tables."""

    def __init__(self, paragraph_text: ElementText) -> None:
        self._paragraph_text = paragraph_text

    def rows(self, table: Element) -> list[list[str]]:
        grid = _Grid()
        for tr in children(table, _TR):
            grid.new_row()
            trpr = tr.find(W + "trPr")
            if trpr is not None:
                grid.skip_columns(int_val(trpr.find(_GRID_BEFORE)))
            for tc in children(tr, _TC):
                span, merge = _layout(tc)
                grid.cell(self.cell_text(tc) if not merge else "", span, merge)
        return grid.rows

    def cell_text(self, cell: Element) -> str:
        lines: list[str] = []
        for block in cell:
            tag = block.tag
            if tag == _P:
                text = self._paragraph_text(block).strip()
            elif tag == _TBL:
                text = self.flatten(block)
            elif tag in WRAPPERS:
                text = self.cell_text(block)
            else:
                continue
            if text:
                lines.append(text)
        return "\n".join(lines)

    def flatten(self, table: Element) -> str:
        lines = []
        for tr in children(table, _TR):
            cells = [self.cell_text(tc) for tc in children(tr, _TC)]
            line = _NESTED_CELL_SEPARATOR.join(cell.replace("\n", " ") for cell in cells if cell)
            if line:
                lines.append(line)
        return "\n".join(lines)


def _layout(tc: Element) -> tuple[int, str]:
    """The cell's column span, and _V_CONTINUE / _H_CONTINUE when it continues a merge."""
    tcpr = tc.find(_TCPR)
    if tcpr is None:
        return 1, ""
    span, merge = 1, ""
    for prop in tcpr:
        tag = prop.tag
        if tag == _GRID_SPAN:
            span = int_val(prop, 1)
        elif tag in (_VMERGE, _HMERGE) and prop.get(W_VAL, "continue") == "continue":
            merge = _V_CONTINUE if tag == _VMERGE else _H_CONTINUE
    return span, merge
