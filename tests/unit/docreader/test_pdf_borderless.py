"""Tables without rules in PDFs generated with reportlab: found, and not invented from prose."""

from __future__ import annotations

import random
from pathlib import Path

from reportlab.lib.enums import TA_JUSTIFY
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen import canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Frame,
    ListFlowable,
    ListItem,
    PageTemplate,
    Paragraph,
    SimpleDocTemplate,
    Table,
)

from tests.unit.docreader.test_pdf import BODY, HEIGHT, WIDTH, flat, parse, table_rows

WORDS = (
    "the",
    "river",
    "flows",
    "past",
    "old",
    "mills",
    "and",
    "quiet",
    "fields",
    "while",
    "engineers",
    "measure",
    "level",
    "flow",
    "pressure",
    "at",
    "every",
    "gate",
    "of",
    "dam",
)


JUSTIFIED = ParagraphStyle("justified", parent=BODY, alignment=TA_JUSTIFY)


def prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def two_columns(path: Path) -> BaseDocTemplate:
    """A document of letter pages laid out in two columns, 18 pt apart."""
    width = (WIDTH - 144 - 18) / 2
    frames = [Frame(72, 72, width, HEIGHT - 144), Frame(90 + width, 72, width, HEIGHT - 144)]
    document = BaseDocTemplate(str(path), pagesize=letter)
    document.addPageTemplates([PageTemplate(frames=frames)])
    return document


def test_borderless_table_of_numbers_becomes_a_markdown_table(tmp_path: Path) -> None:
    path = tmp_path / "borderless.pdf"
    data = [["Station", "Reading", "Level", "Flow", "Status"]] + [
        [f"station {r}", f"{r * 12.5:.1f}", str(r), f"{r * 0.37:.2f}", "ok" if r % 3 else "alarm"]
        for r in range(1, 9)
    ]
    story = [
        Paragraph("Readings taken at the gates during the spring survey.", BODY),
        Table(data),  # no style: no rules at all, only the cells' padding between columns
        Paragraph("All stations reported within the expected range.", BODY),
    ]
    SimpleDocTemplate(str(path)).build(story)

    markdown = parse(path).markdown

    assert table_rows(markdown) == data
    assert markdown.splitlines()[2] == "| Station | Reading | Level | Flow | Status |"
    text = flat(markdown)
    assert text.index("spring survey.") < text.index("| Station") < text.index("All stations")


def test_borderless_statement_between_paragraphs(tmp_path: Path) -> None:
    """A statement drawn with right-aligned figures, an empty header cell, a section label,
    a label wrapped over two lines, between paragraphs, under a header and footer."""
    path = tmp_path / "statement.pdf"
    statement = [
        ("Revenue", "4", "12,345", "11,002"),
        ("Cost of sales", "5", "(7,210)", "(6,544)"),
        ("Gross profit", "", "5,135", "4,458"),
        ("Operating expenses", "", "", ""),
        ("Selling and distribution", "6", "(1,204)", "(1,100)"),
        ("Administrative expenses", "7", "(980)", "(1,015)"),
        ("Profit before tax", "", "2,951", "2,343"),
    ]
    drawing = canvas.Canvas(str(path), pagesize=letter)
    for page in range(1, 4):
        drawing.setFont("Helvetica", 9)
        # Three-part running header and footer: repeated, dropped, never a table.
        drawing.drawString(72, HEIGHT - 40, "Heron Water Board")
        drawing.drawCentredString(WIDTH / 2, HEIGHT - 40, "Annual report")
        drawing.drawRightString(WIDTH - 72, HEIGHT - 40, "Confidential")
        drawing.drawString(72, 30, "heron.example.org")
        drawing.drawCentredString(WIDTH / 2, 30, f"Page {page} of 3")
        drawing.drawRightString(WIDTH - 72, 30, "2024")
        drawing.setFont("Helvetica", 10)
        drawing.drawString(72, 700, f"Page {page} opens with a sentence about the statement below.")
        y = 670
        for x, title in ((330, "Note"), (420, "2023"), (500, "2022")):
            drawing.drawRightString(x, y, title)
        for label, *figures in statement:
            y -= 14
            drawing.drawString(72, y, label)
            for x, figure in zip((330, 420, 500), figures, strict=True):
                if figure:
                    drawing.drawRightString(x, y, figure)
        y -= 14
        drawing.drawString(72, y, "Net finance costs and other")
        drawing.drawRightString(330, y, "8")
        drawing.drawRightString(420, y, "(120)")
        drawing.drawRightString(500, y, "(145)")
        drawing.drawString(72, y - 10, "charges")  # the wrapped rest of the label, set closer
        drawing.drawString(72, y - 44, "The figures are unaudited and rounded to thousands.")
        drawing.showPage()
    drawing.save()

    markdown = parse(path).markdown

    expected = [["", "Note", "2023", "2022"], *map(list, statement)]
    expected.append(["Net finance costs and other charges", "8", "(120)", "(145)"])
    assert table_rows(markdown) == expected * 3
    for repeated in ("Heron Water Board", "Annual report", "Confidential", "heron.example", "2024"):
        assert repeated not in markdown
    text = flat(markdown)
    for page in range(1, 4):
        opening = f"Page {page} opens with a sentence about the statement below."
        assert opening in text
    assert text.count("The figures are unaudited and rounded to thousands.") == 3
    assert text.index("Page 2 opens") < text.index("| Revenue", text.index("Page 2 opens"))


def test_two_column_prose_is_not_a_table(tmp_path: Path) -> None:
    path = tmp_path / "columns.pdf"
    rng = random.Random(7)
    paragraphs = [prose(rng, 70) for _ in range(6)]
    items = [prose(rng, 4) for _ in range(4)]  # one line each
    story: list[object] = [Paragraph(text, JUSTIFIED) for text in paragraphs[:3]]
    bullets = [ListItem(Paragraph(item, BODY)) for item in items]
    story.append(ListFlowable(bullets, bulletType="bullet"))
    story.extend(Paragraph(text, JUSTIFIED) for text in paragraphs[3:])
    two_columns(path).build(story)

    markdown = parse(path).markdown

    assert table_rows(markdown) == []
    text = flat(markdown)
    positions = [text.index(paragraph) for paragraph in paragraphs]
    assert positions == sorted(positions)
    assert all(f"- {item}" in markdown for item in items)


def test_ragged_prose_is_not_a_table(tmp_path: Path) -> None:
    """Words drawn one by one with uneven gaps, some wider than a font size, on ragged lines."""
    path = tmp_path / "ragged.pdf"
    rng = random.Random(11)
    drawing = canvas.Canvas(str(path), pagesize=letter)
    drawing.setFont("Helvetica", 10)
    words: list[str] = []
    for line in range(16):
        x, end = 72.0 + rng.choice((0, 0, 14, 28)), rng.uniform(360, 540)
        while x < end:
            word = rng.choice(WORDS)
            drawing.drawString(x, 700 - 13 * line, word)
            words.append(word)
            x += drawing.stringWidth(word, "Helvetica", 10) + rng.choice((3, 3, 4, 11, 14, 18))
    drawing.save()

    markdown = parse(path).markdown

    assert table_rows(markdown) == []
    assert flat(markdown).split() == words


def test_borderless_table_in_one_column_of_two(tmp_path: Path) -> None:
    """The prose of the other column, beside the table, neither joins it nor breaks it."""
    path = tmp_path / "paper.pdf"
    rng = random.Random(3)
    data = [["Gate", "Flow", "Head"]] + [[f"G{n}", f"{n / 2:.1f}", str(3 * n)] for n in range(1, 7)]
    paragraphs = [prose(rng, 70) for _ in range(8)]
    story: list[object] = [Paragraph(text, JUSTIFIED) for text in paragraphs[:2]]
    story.append(Table(data))
    story.extend(Paragraph(text, JUSTIFIED) for text in paragraphs[2:])
    two_columns(path).build(story)

    markdown = parse(path).markdown

    assert table_rows(markdown) == data
    text = flat(markdown)
    positions = [text.index(paragraph) for paragraph in paragraphs]
    assert positions == sorted(positions)
    assert positions[1] < text.index("| Gate |") < positions[2]
