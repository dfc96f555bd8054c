"""GFM tables found in a Markdown document, with the heading that names each one.

The docreader writes every spreadsheet sheet as ``## Sheet: <name>`` followed by its table
(the markitdown engine writes ``## <name>``), and a CSV as one table without a heading.
A table is a header row, a delimiter row (``| --- | :-: |``) with as many cells, then
body rows up to the first blank or pipe-less line; tables in fenced code are not tables.
A header row repeated with its delimiter inside a body — how a table split into several
chunks carries its header into each — starts no new table and is not data.

The paragraph lines between the heading (or the previous table) and a table are what the
docreader writes above a sheet's table: its title rows, then ``Merged cells: A1:F4, ...``.
The last few of them become the table's ``caption`` and ``merged_cells``.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, replace

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_DELIMITER_CELL = re.compile(r"^:?-+:?$")
_SHEET_PREFIX = re.compile(r"^sheet\s*:\s*", re.IGNORECASE)
_LINE_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_ESCAPABLE = frozenset(string.punctuation)
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
MERGED_CELLS_PREFIX = "Merged cells: "
# Paragraph lines kept as a caption: a sheet's titles are at most three, plus its merges.
_CAPTION_LINES = 4


@dataclass(frozen=True)
class MarkdownTable:
    # The nearest heading above the table, "Sheet: " taken off; "" when there is none.
    title: str
    header: tuple[str, ...]
    # Every row has exactly len(header) cells; rows with no text at all are left out.
    rows: tuple[tuple[str, ...], ...]
    # The title lines above the table, joined by " / " ("" when none).
    caption: str = ""
    # The sheet's merged ranges with a value, e.g. "A1:F4, A6:A9" ("" when none).
    merged_cells: str = ""


def tables_in(markdown: str) -> list[MarkdownTable]:
    # Only "\n" ends a line: splitlines() would also break a cell at U+2028, \x0c and the like,
    # which the chunker's table scanner keeps inside the row.
    lines = [line.rstrip("\r") for line in markdown.split("\n")]
    tables: list[MarkdownTable] = []
    title = ""
    above: list[str] = []
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if fence:
            if line.strip().startswith(fence):
                fence = ""
            i += 1
            continue
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)[0] * 3
            i += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            title = _SHEET_PREFIX.sub("", heading.group(2).strip())
            above = []
            i += 1
            continue
        header = _row_cells(line)
        if header and i + 1 < len(lines) and _is_delimiter(lines[i + 1], len(header)):
            table, i = _read_table(lines, i + 2, title, header)
            tables.append(_captioned(table, above[-_CAPTION_LINES:]))
            above = []
            continue
        if line.strip() and header is None:
            above.append(_ESCAPED.sub(r"\1", line.strip()))
        i += 1
    return tables


def _captioned(table: MarkdownTable, above: list[str]) -> MarkdownTable:
    merged = [line for line in above if line.startswith(MERGED_CELLS_PREFIX)]
    titles = [line for line in above if not line.startswith(MERGED_CELLS_PREFIX)]
    return replace(
        table,
        caption=" / ".join(titles),
        merged_cells=merged[-1].removeprefix(MERGED_CELLS_PREFIX) if merged else "",
    )


def _read_table(
    lines: list[str], start: int, title: str, header: list[str]
) -> tuple[MarkdownTable, int]:
    """The body from ``lines[start]``; returns the table and the index after it."""
    width = len(header)
    rows: list[tuple[str, ...]] = []
    i = start
    while i < len(lines):
        cells = _row_cells(lines[i])
        if cells is None:
            break
        if cells == header and i + 1 < len(lines) and _is_delimiter(lines[i + 1], width):
            i += 2
            continue
        row = tuple((cells + [""] * width)[:width])
        if any(row):
            rows.append(row)
        i += 1
    names = tuple(_LINE_BREAK.sub(" ", cell) for cell in header)
    body = tuple(tuple(_LINE_BREAK.sub(" ", cell) for cell in row) for row in rows)
    return MarkdownTable(title, names, body), i


def _is_delimiter(line: str, width: int) -> bool:
    cells = _row_cells(line)
    return (
        cells is not None
        and len(cells) == width
        and all(_DELIMITER_CELL.match(cell) for cell in cells)
    )


def _row_cells(line: str) -> list[str] | None:
    """The unescaped, stripped cells of a table row; None when the line is not one."""
    text = line.strip()
    if not text:
        return None
    cells: list[str] = []
    current: list[str] = []
    pipes = 0
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPABLE:
            current.append(text[i + 1])
            i += 2
            continue
        if char == "|":
            pipes += 1
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        i += 1
    if pipes == 0:
        return None
    cells.append("".join(current).strip())
    # The outer pipes are optional in GFM; when present they bound no cell.
    if text.startswith("|"):
        cells = cells[1:]
    if _ends_with_pipe(text):
        cells = cells[:-1]
    return cells


def _ends_with_pipe(text: str) -> bool:
    """A final ``|`` that is not escaped (preceded by an even run of backslashes)."""
    if not text.endswith("|"):
        return False
    backslashes = len(text[:-1]) - len(text[:-1].rstrip("\\"))
    return backslashes % 2 == 0
