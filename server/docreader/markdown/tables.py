"""Rows of cell text → a Markdown (GFM) table.

Every row is padded to the widest row; ``|`` and ``\\`` in cells are escaped and line breaks
become ``<br>``, so a cell can never break the table. Without a header row an empty header
is written, because GFM tables must have one and the first data row must stay data.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from server.docreader.parser_contract import DocumentSink

# Rows joined per sink write: big tables stream out without one giant string.
ROWS_PER_WRITE = 1_000


def markdown_table(
    rows: Sequence[Sequence[str]], *, header: bool = True, collapsed: bool = False
) -> str:
    """``collapsed``: every cell is one line of text without whitespace at its ends (as the
    HTML reader's plain cells are): a look at all cells at once then tells whether any needs
    escaping, and a table that needs none is joined without a look at each cell."""
    # Blank rows are left out (a blank collapsed cell is "").
    rows = list(filter(any, rows)) if collapsed else [r for r in rows if "".join(r).strip()]
    if not rows:
        return ""
    width = max(map(len, rows))
    head, body = (rows[0], rows[1:]) if header else ([""] * width, rows)
    if collapsed:
        text = "".join(map("".join, rows))
        if "|" not in text and "\\" not in text:
            return _plain_table([head, ["---"] * width, *body], width)
    lines = [table_row(head, width), table_row(["---"] * width, width)]
    lines += [table_row(row, width) for row in body]
    return "\n".join(lines)


def write_table(
    sink: DocumentSink, head: Sequence[str], rows: Iterable[Sequence[str]], width: int
) -> None:
    """Write a table of ``width`` columns with ``head`` as its header row, in batches of
    lines (no trailing newline), so its rows may come from a generator or a spool."""
    lines = [table_row(head, width), table_row(["---"] * width, width)]
    separator = ""
    for row in rows:
        lines.append(table_row(row, width))
        if len(lines) >= ROWS_PER_WRITE:
            sink.write(separator + "\n".join(lines))
            separator, lines = "\n", []
    if lines:
        sink.write(separator + "\n".join(lines))


def table_row(cells: Sequence[str], width: int) -> str:
    plain = "".join(cells)
    if "|" in plain or "\\" in plain or "\n" in plain or "\r" in plain:
        padded = [escape_cell(cell) for cell in cells]
    else:  # the common row: nothing to escape in any cell, one look at them all tells
        padded = [cell.strip() for cell in cells]
    if len(padded) < width:
        padded += [""] * (width - len(padded))
    return "| " + " | ".join(padded) + " |"


def _plain_table(rows: list[Sequence[str]], width: int) -> str:
    """The lines of rows whose cells need neither stripping nor escaping."""
    if min(map(len, rows)) < width:
        rows = [[*row, *[""] * (width - len(row))] for row in rows]
    return "| " + " |\n| ".join(map(" | ".join, rows)) + " |"


def escape_cell(value: str) -> str:
    text = value.strip().replace("\\", "\\\\").replace("|", "\\|")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "<br>".join(part.strip() for part in text.split("\n"))
