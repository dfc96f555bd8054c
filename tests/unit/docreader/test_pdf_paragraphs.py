"""Headings and lists in PDFs generated with reportlab: a wrapped heading stays one heading,
list items wrapped onto indented lines stay one item each, numbers make ordered items."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import ListFlowable, ListItem, Paragraph, SimpleDocTemplate

from tests.support.corpus_large import write_text_pdf
from tests.unit.docreader.test_pdf import BODY, STYLES, parse

# Ten paragraphs of two or three lines of 10 pt prose: the body size is 10 pt whatever else
# the page holds, and lines inside paragraphs show the usual line pitch.
PROSE = [
    f"Paragraph {n} tells how the crew walked the levee at dawn, logged every gauge reading "
    "along the canal and compared the figures with the seasonal model before the storm."
    for n in range(10)
]
# Two lines each at 10 pt on a letter page; the second line starts "with the seasonal...".
ITEMS = [
    f"The sluice gate controller records every reading from the upstream gauges and compares "
    f"them with the seasonal model {n}."
    for n in range(3)
]
# Wraps in Heading2 before "more compares.", a line without capitals or ascenders, whose top
# lies lower than a full line's would.
WRAPPED_HEADING = "Readings of the upstream gauges against the seasonal model once more compares."


def build(path: Path, flowables: list[object]) -> str:
    story = [
        *(Paragraph(text, BODY) for text in PROSE[:5]),
        *flowables,
        *(Paragraph(text, BODY) for text in PROSE[5:]),
    ]
    SimpleDocTemplate(str(path)).build(story)
    return parse(path).markdown


def blocks(markdown: str) -> list[str]:
    return markdown.split("\n\n")


def test_a_wrapped_heading_stays_one_heading(tmp_path: Path) -> None:
    markdown = build(
        tmp_path / "heading.pdf",
        [
            Paragraph(WRAPPED_HEADING, STYLES["Heading2"]),
            Paragraph("Gauges", STYLES["Heading2"]),
            Paragraph("Levees", STYLES["Heading2"]),
        ],
    )

    headings = [block for block in blocks(markdown) if block.startswith("#")]
    # Two headings in a row, apart by heading spacing, stay two.
    assert headings == [f"## {WRAPPED_HEADING}", "## Gauges", "## Levees"]


def test_the_text_pdf_benchmark_has_one_heading_per_section(tmp_path: Path) -> None:
    path = tmp_path / "text.pdf"
    write_text_pdf(path, 5)

    headings = [block for block in blocks(parse(path).markdown) if block.startswith("#")]

    sections = [heading for heading in headings if heading.startswith("## ")]
    assert [heading.split(":")[0] for heading in sections] == [
        f"## Section {n}" for n in range(1, 6)
    ]
    # Page 5's heading wraps before "compares.", a line without capitals or ascenders.
    assert sections[4] == "## Section 5: Gauge crew copper bridge heron clears basin compares."
    assert len(headings) == 10 and all(heading.startswith("### ") for heading in headings[1::2])


def test_wrapped_bullet_items_are_one_list_item_each(tmp_path: Path) -> None:
    items = [ListItem(Paragraph(text, BODY)) for text in ITEMS]
    markdown = build(tmp_path / "bullets.pdf", [ListFlowable(items, bulletType="bullet")])

    assert "\n".join(f"- {text}" for text in ITEMS) in blocks(markdown)


def test_numbered_items_are_ordered_list_items_not_headings(tmp_path: Path) -> None:
    """reportlab draws a bare "1" in 12 pt before 10 pt text, its top the text's top."""
    short = ["Open the upstream gate.", "Read the gauge.", "Close the gate."]
    # A heading's number set apart the same way stays as it is.
    numbered_heading = ParagraphStyle(
        "numbered", parent=STYLES["Heading2"], leftIndent=24, bulletIndent=0, bulletFontSize=14
    )
    markdown = build(
        tmp_path / "numbered.pdf",
        [
            ListFlowable([ListItem(Paragraph(text, BODY)) for text in ITEMS], bulletType="1"),
            Paragraph("Methods", numbered_heading, bulletText="2"),
            ListFlowable([ListItem(Paragraph(text, BODY)) for text in short], bulletType="1"),
        ],
    )

    assert [block for block in blocks(markdown) if "#" in block] == ["## 2 Methods"]
    assert "\n".join(f"{n}. {text}" for n, text in enumerate(ITEMS, 1)) in blocks(markdown)
    assert "\n".join(f"{n}. {text}" for n, text in enumerate(short, 1)) in blocks(markdown)


def test_paragraphs_with_bullet_text_and_hanging_indent_are_list_items(tmp_path: Path) -> None:
    hanging = ParagraphStyle("hanging", parent=BODY, leftIndent=18, bulletIndent=0)
    markdown = build(
        tmp_path / "bullet-text.pdf",
        [
            *(Paragraph(text, hanging, bulletText="\u2022") for text in ITEMS),
            Paragraph("Then the same steps in order:", BODY),
            *(Paragraph(text, hanging, bulletText=f"{n}.") for n, text in enumerate(ITEMS, 1)),
        ],
    )

    found = blocks(markdown)
    assert "\n".join(f"- {text}" for text in ITEMS) in found
    assert "\n".join(f"{n}. {text}" for n, text in enumerate(ITEMS, 1)) in found
    assert "Then the same steps in order:" in found


def test_an_indented_paragraph_after_a_short_numbered_title_stays_apart(tmp_path: Path) -> None:
    """Only a full line wraps: "5. COMBINING DOCUMENTS" is a run-in title, not an item."""
    indented = ParagraphStyle("indented", parent=BODY, firstLineIndent=18, spaceBefore=0)
    markdown = build(
        tmp_path / "run-in.pdf",
        [
            Paragraph("5. COMBINING DOCUMENTS", BODY),
            Paragraph(PROSE[0], indented),
        ],
    )

    assert ["5. COMBINING DOCUMENTS", PROSE[0]] == blocks(markdown)[5:7]
