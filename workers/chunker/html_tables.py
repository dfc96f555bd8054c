"""HTML ``<table>`` elements inside Markdown become Markdown tables, before chunking.

Parsers and engines differ in how they emit tables; normalising them lets the chunker keep
every table whole the same way. A cell spanning rows or columns is repeated in every cell it
covers. The first row is the header. Tables inside fenced code are left alone, and so is a
``<table>`` without its closing tag.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag

from workers.chunker.blocks import BlockKind, scan_blocks

_TABLE_TAG = re.compile(r"<(/?)table\b[^>]*>", re.IGNORECASE)
# Whether there is any table at all: spelled out rather than lower-casing the text, which
# took an eighth of the chunking stage's time on a mixed corpus.
_TABLE_OPEN = re.compile(r"<[tT][aA][bB][lL][eE]")
_WHITESPACE = re.compile(r"\s+")
# HTML caps colspan at 1000; rowspan is capped the same to bound the grid.
_MAX_SPAN = 1000


def normalize_html_tables(markdown: str) -> str:
    if _TABLE_OPEN.search(markdown) is None:
        return markdown
    fences = [(b.start, b.end) for b in scan_blocks(markdown) if b.kind is BlockKind.FENCE]
    parts: list[str] = []
    cursor = 0
    for start, end in _outer_tables(markdown):
        if start < cursor or any(f_start <= start < f_end for f_start, f_end in fences):
            continue
        table = _to_markdown(markdown[start:end])
        before = markdown[cursor:start]
        parts.append(before)
        parts.append(_separator(before) + table + _separator_after(markdown[end:], table))
        cursor = end
    parts.append(markdown[cursor:])
    return "".join(parts)


def _outer_tables(markdown: str) -> list[tuple[int, int]]:
    """Spans of outermost ``<table>…</table>`` elements (nested tables included in them)."""
    spans = []
    depth = 0
    opened = 0
    for tag in _TABLE_TAG.finditer(markdown):
        if not tag.group(1):
            if depth == 0:
                opened = tag.start()
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((opened, tag.end()))
    return spans


def _separator(before: str) -> str:
    """Blank line needed so the table starts its own block."""
    if not before or before.endswith("\n\n"):
        return ""
    return "\n" if before.endswith("\n") else "\n\n"


def _separator_after(after: str, table: str) -> str:
    if not table or not after or after.startswith("\n\n"):
        return ""
    return "\n" if after.startswith("\n") else "\n\n"


def _to_markdown(html: str) -> str:
    table = BeautifulSoup(html, "lxml").find("table")
    if not isinstance(table, Tag):
        return ""
    grid = _grid(table)
    if not grid:
        return ""
    width = max(len(row) for row in grid)
    rows = [row + [""] * (width - len(row)) for row in grid]
    lines = [_row(rows[0]), _row(["---"] * width)]
    lines.extend(_row(row) for row in rows[1:])
    return "\n".join(lines)


def _grid(table: Tag) -> list[list[str]]:
    rows = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
    filled: list[dict[int, str]] = [{} for _ in rows]
    for r, tr in enumerate(rows):
        c = 0
        for cell in tr.find_all(["td", "th"], recursive=False):
            while c in filled[r]:
                c += 1
            text = _cell_text(cell)
            row_span = min(_span(cell.get("rowspan")), len(rows) - r)
            col_span = _span(cell.get("colspan"))
            for covered in filled[r : r + row_span]:
                for dc in range(col_span):
                    covered[c + dc] = text
            c += col_span
    return [[row.get(c, "") for c in range(1 + max(row))] for row in filled if row]


def _span(value: object) -> int:
    try:
        span = int(str(value))
    except ValueError:
        return 1
    return min(max(span, 1), _MAX_SPAN)


def _cell_text(cell: Tag) -> str:
    text = _WHITESPACE.sub(" ", cell.get_text(" ", strip=True)).strip()
    return text.replace("\\", "\\\\").replace("|", "\\|")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"
