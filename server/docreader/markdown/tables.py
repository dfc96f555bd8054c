"""Rows of cell text → a Markdown (GFM) table.

Every row is padded to the widest row; ``|`` and ``\\`` in cells are escaped and line breaks
become ``<br>``, so a cell can never break the table. Without a header row an empty header
is written, because GFM tables must have one and the first data row must stay data.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from server.docreader.parsers.base import DocumentSink

# Rows joined per sink write: big tables stream out without one giant string.
ROWS_PER_WRITE = 1_000


def markdown_table(rows: Sequence[Sequence[str]], *, header: bool = True) -> str:
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    head, body = (rows[0], rows[1:]) if header else ([""] * width, rows)
    lines = [table_row(head, width), table_row(["---"] * width, width)]
    lines.extend(table_row(row, width) for row in body)
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
    padded = [escape_cell(cell) for cell in cells] + [""] * (width - len(cells))
    return "| " + " | ".join(padded) + " |"


def escape_cell(value: str) -> str:
    text = value.strip().replace("\\", "\\\\").replace("|", "\\|")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "<br>".join(part.strip() for part in text.split("\n"))
