"""Large benchmark inputs: a 50-page text PDF with tables, a 10,000-row, 10-column workbook,
a 100-page Word document (~2,500 paragraphs with headings and 20 tables) and a ~1 MB HTML
article; and apart (``build_text_pdf``), a 50-page PDF of prose and headings only.

The prose is seeded, so every run benchmarks the same bytes. ``scale`` shrinks everything
proportionally, for tests that only check the generators work.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass
from pathlib import Path

import docx
from openpyxl import Workbook
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import (
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Table,
    TableStyle,
)


@dataclass(frozen=True)
class LargeFile:
    path: Path
    file_type: str
    # What it holds, for reports: "50 pages", "10000 rows x 10 columns"...
    description: str


_WORDS = (
    "river",
    "basin",
    "heron",
    "lantern",
    "ledger",
    "survey",
    "harbour",
    "pump",
    "valve",
    "meter",
    "crew",
    "season",
    "storm",
    "gauge",
    "canal",
    "bridge",
    "otter",
    "copper",
    "amber",
    "reading",
    "report",
    "channel",
    "levee",
    "spillway",
    "turbine",
    "inspects",
    "records",
    "measures",
    "adjusts",
    "compares",
    "verifies",
    "schedules",
    "repairs",
    "logs",
    "clears",
    "quietly",
    "weekly",
    "upstream",
    "downstream",
    "nominal",
    "seasonal",
    "primary",
    "spare",
    "remote",
    "local",
)
_COLUMNS = (
    "id",
    "region",
    "station",
    "reading",
    "level",
    "flow",
    "status",
    "crew",
    "note",
    "checked",
)
_TABLE_HEADER = ("Station", "Reading", "Level", "Flow", "Status")
_SEED = 20261130


def _sentence(rng: random.Random, length: tuple[int, int] = (8, 14)) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(*length))]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(3, 6)))


def _table_rows(rng: random.Random, rows: int) -> list[list[str]]:
    return [list(_TABLE_HEADER)] + [
        [
            f"station {rng.randint(1, 99)}",
            f"{rng.uniform(0, 100):.1f}",
            str(rng.randint(1, 9)),
            f"{rng.uniform(0, 5):.2f}",
            rng.choice(("ok", "check", "alarm")),
        ]
        for _ in range(rows)
    ]


def write_pdf(path: Path, pages: int) -> None:
    rng = random.Random(_SEED)
    styles = getSampleStyleSheet()
    grid = TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)])
    story: list[object] = []
    for page in range(pages):
        if page:
            story.append(PageBreak())
        story.append(Paragraph(f"Section {page + 1}: {_sentence(rng)}", styles["Heading2"]))
        story.extend(Paragraph(_paragraph(rng), styles["BodyText"]) for _ in range(5))
        story.append(Table(_table_rows(rng, 7), style=grid))
    SimpleDocTemplate(str(path), pagesize=A4, title="Large survey").build(story)


def write_text_pdf(path: Path, pages: int) -> None:
    """``pages`` pages of prose without tables: a section heading, a subheading half-way
    and six paragraphs on each page."""
    rng = random.Random(_SEED)
    styles = getSampleStyleSheet()
    story: list[object] = []
    for page in range(pages):
        if page:
            story.append(PageBreak())
        story.append(Paragraph(f"Section {page + 1}: {_sentence(rng)}", styles["Heading2"]))
        for n in range(6):
            if n == 3:
                story.append(Paragraph(_sentence(rng, (3, 6)), styles["Heading3"]))
            story.append(Paragraph(_paragraph(rng), styles["BodyText"]))
    SimpleDocTemplate(str(path), pagesize=A4, title="Large report").build(story)


def write_xlsx(path: Path, rows: int) -> None:
    rng = random.Random(_SEED)
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("Readings")
    sheet.append(list(_COLUMNS))
    for n in range(rows):
        sheet.append(
            [
                n,
                rng.choice(("North", "South", "East", "West")),
                f"station {rng.randint(1, 99)}",
                round(rng.uniform(0, 100), 2),
                rng.randint(1, 9),
                round(rng.uniform(0, 5), 3),
                rng.choice(("ok", "check", "alarm")),
                rng.choice(_WORDS),
                _sentence(rng),
                rng.random() < 0.5,
            ]
        )
    workbook.save(str(path))


def write_docx(path: Path, paragraphs: int, tables: int) -> None:
    """``paragraphs`` paragraphs (a one-line sentence each: ~25 to a page), a heading every
    25th, ``tables`` tables spread evenly between them."""
    rng = random.Random(_SEED)
    document = docx.Document()
    document.add_heading("Large survey", level=1)
    table_every = max(1, paragraphs // max(tables, 1))
    written_tables = 0
    for n in range(1, paragraphs):
        if n % 25 == 0:
            document.add_heading(_sentence(rng)[:60], level=2)
        else:
            document.add_paragraph(_sentence(rng, (6, 10)))
        if n % table_every == table_every // 2 and written_tables < tables:
            rows = _table_rows(rng, 5)
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for row, values in zip(table.rows, rows, strict=True):
                for cell, value in zip(row.cells, values, strict=True):
                    cell.text = value
            written_tables += 1
    document.save(str(path))


def write_html(path: Path, size_bytes: int) -> None:
    rng = random.Random(_SEED)
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>Large survey</title></head><body><article>\n<h1>Large survey</h1>\n"
    ]
    size = len(parts[0])
    section = 0
    while size < size_bytes:
        section += 1
        blocks = [f"<h2>Section {section}</h2>"]
        blocks.extend(f"<p>{html.escape(_paragraph(rng))}</p>" for _ in range(4))
        if section % 2:
            blocks.append(
                "<ul>"
                + "".join(f"<li>{html.escape(_sentence(rng))}</li>" for _ in range(5))
                + "</ul>"
            )
        if section % 3 == 0:
            head, *body = _table_rows(rng, 6)
            blocks.append(
                "<table><tr>"
                + "".join(f"<th>{c}</th>" for c in head)
                + "</tr>"
                + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in body)
                + "</table>"
            )
        chunk = "\n".join(blocks) + "\n"
        parts.append(chunk)
        size += len(chunk)
    parts.append("</article></body></html>\n")
    path.write_text("".join(parts), encoding="utf-8")


def build_text_pdf(directory: Path, scale: float = 1.0) -> LargeFile:
    """The text-only counterpart of the large PDF: as many pages, no tables."""
    pages = max(2, round(50 * scale))
    path = directory / "large-text.pdf"
    write_text_pdf(path, pages)
    return LargeFile(path, "pdf", f"{pages} text-only pages")


def build_large_files(directory: Path, scale: float = 1.0) -> list[LargeFile]:
    pages = max(2, round(50 * scale))
    rows = max(20, round(10_000 * scale))
    paragraphs, tables = max(50, round(2_500 * scale)), max(1, round(20 * scale))
    html_bytes = max(20_000, round(1_000_000 * scale))
    pdf, xlsx = directory / "large.pdf", directory / "large.xlsx"
    word, page = directory / "large.docx", directory / "large.html"
    write_pdf(pdf, pages)
    write_xlsx(xlsx, rows)
    write_docx(word, paragraphs, tables)
    write_html(page, html_bytes)
    return [
        LargeFile(pdf, "pdf", f"{pages} pages with ruled tables"),
        LargeFile(xlsx, "xlsx", f"{rows} rows x {len(_COLUMNS)} columns"),
        LargeFile(word, "docx", f"{paragraphs} paragraphs, {tables} tables"),
        LargeFile(page, "html", f"{html_bytes // 1000} kB"),
    ]
