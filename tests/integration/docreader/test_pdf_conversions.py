"""Conversions through a real docreader: numbered PDF page headings, wrapped PDF table cells,
and line breaks inside Chinese text (PDF paragraphs, DOCX headings, HTML source) that add no
space."""

# Chinese punctuation in strings is the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

import io
import re

import docx
import pytest
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas
from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

from workers.docreader_client import DocReaderClient

STYLES = getSampleStyleSheet()
WIDTH, HEIGHT = letter
FACT = "The reservoir behind the dam holds back enough water to feed three towns."


def read_pdf(client: DocReaderClient, content: bytes) -> str:
    return client.read(content, file_name="doc.pdf", file_type="pdf").markdown


def table_rows(markdown: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in markdown.splitlines()
        if line.startswith("|") and not re.fullmatch(r"\|( --- \|)+", line)
    ]


def test_page_headings_differing_only_by_their_number_are_kept(client: DocReaderClient) -> None:
    buffer = io.BytesIO()
    drawing = canvas.Canvas(buffer, pagesize=letter)
    for section in range(1, 301):
        # In the top margin band, set apart from the body like a running header would be.
        drawing.setFont("Helvetica-Bold", 14)
        drawing.drawString(72, HEIGHT - 50, f"Large report - section {section}")
        drawing.setFont("Helvetica", 9)
        drawing.drawString(72, 30, "Large report, printed 2026-11-30")
        drawing.drawRightString(WIDTH - 72, 30, str(section))
        drawing.setFont("Helvetica", 11)
        drawing.drawString(72, 680, f"Findings of section {section} about the pumps.")
        drawing.showPage()
    drawing.save()

    markdown = read_pdf(client, buffer.getvalue())

    for section in range(1, 301):
        assert f"Large report - section {section}" in markdown
        assert f"Findings of section {section} about the pumps." in markdown
    # The footer repeats word for word and the page numbers are bare: both are furniture.
    assert "printed" not in markdown
    assert not [line for line in markdown.splitlines() if line.strip().isdigit()]


def test_running_footer_with_a_page_number_set_off_is_dropped(client: DocReaderClient) -> None:
    buffer = io.BytesIO()
    drawing = canvas.Canvas(buffer, pagesize=letter)
    for page in range(1, 6):
        drawing.setFont("Helvetica", 9)
        drawing.drawString(72, HEIGHT - 40, f"Page {page} - Water board annual report")
        drawing.drawString(72, 30, f"Confidential | {page}")
        drawing.setFont("Helvetica", 11)
        drawing.drawString(72, 680, f"Body of page {page}.")
        drawing.showPage()
    drawing.save()

    markdown = read_pdf(client, buffer.getvalue())

    assert "Water board" not in markdown and "Confidential" not in markdown
    assert all(f"Body of page {page}." in markdown for page in range(1, 6))


@pytest.mark.parametrize("ruled", [True, False], ids=["ruled", "borderless"])
@pytest.mark.parametrize("valign", ["TOP", "MIDDLE", "BOTTOM"])
def test_a_wrapped_table_cell_stays_one_row(
    client: DocReaderClient, ruled: bool, valign: str
) -> None:
    cell = Paragraph(FACT, STYLES["BodyText"])
    table = Table(
        [["Fact", "Value", "Unit"], [cell, "12", "m"], ["Depth", "3", "km"], ["Mass", "4", "kg"]],
        colWidths=[220, 80, 80],
    )
    style: list[tuple[object, ...]] = [("VALIGN", (0, 0), (-1, -1), valign)]
    if ruled:
        style.append(("GRID", (0, 0), (-1, -1), 0.5, colors.black))
    table.setStyle(TableStyle(style))
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer).build([table])

    assert table_rows(read_pdf(client, buffer.getvalue())) == [
        ["Fact", "Value", "Unit"],
        [FACT, "12", "m"],
        ["Depth", "3", "km"],
        ["Mass", "4", "kg"],
    ]


def test_a_table_ruled_only_around_its_edge_keeps_a_row_per_line(
    client: DocReaderClient,
) -> None:
    table = Table(
        [["Gate", "Flow", "Head"], ["A", "12", "3"], ["B", "", "4"], ["C", "7", "5"]],
        colWidths=[120, 80, 80],
    )
    table.setStyle(
        TableStyle(
            [
                ("BOX", (0, 0), (-1, -1), 0.5, colors.black),
                ("LINEAFTER", (0, 0), (-2, -1), 0.5, colors.black),
            ]
        )
    )
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer).build([table])

    assert table_rows(read_pdf(client, buffer.getvalue())) == [
        ["Gate", "Flow", "Head"],
        ["A", "12", "3"],
        ["B", "", "4"],
        ["C", "7", "5"],
    ]


CHINESE = (
    "水库是拦洪蓄水和调节水流的水利工程建筑物，可以利用来灌溉、发电、防洪和养鱼。"
    "它通常由大坝、溢洪道和放水建筑物组成，库区的水位随季节变化。"
)


def test_line_breaks_inside_a_chinese_sentence_add_no_space(client: DocReaderClient) -> None:
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    style = STYLES["BodyText"].clone("chinese", fontName="STSong-Light", wordWrap="CJK")
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer).build([Paragraph(CHINESE * 3, style)])

    markdown = read_pdf(client, buffer.getvalue())

    # Three times the text wraps over several lines; no break may leave a space behind.
    assert markdown.strip() == CHINESE * 3


def test_line_breaks_in_mixed_text_keep_the_space_between_latin_words(
    client: DocReaderClient,
) -> None:
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    style = STYLES["BodyText"].clone("mixed", fontName="STSong-Light")
    words = " ".join(["pump", "station", "水库", "gate"] * 20)
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer).build([Paragraph(words, style)])

    assert read_pdf(client, buffer.getvalue()).strip() == words


def test_a_manual_line_break_in_a_chinese_docx_heading_adds_no_space(
    client: DocReaderClient,
) -> None:
    document = docx.Document()
    heading = document.add_heading("水库的调度", level=1)
    heading.runs[0].add_break()
    heading.add_run("与防洪")
    mixed = document.add_heading("Flood control", level=2)
    mixed.runs[0].add_break()
    mixed.add_run("of the reservoir")
    buffer = io.BytesIO()
    document.save(buffer)

    markdown = client.read(buffer.getvalue(), file_name="d.docx", file_type="docx").markdown

    assert "# 水库的调度与防洪" in markdown
    assert "## Flood control of the reservoir" in markdown


def test_a_source_line_break_inside_chinese_html_text_adds_no_space(
    client: DocReaderClient,
) -> None:
    page = (
        "<html><body><p>水库是拦洪蓄水和调节水流的\n  水利工程建筑物，<b>可以\n利用来</b>灌溉。</p>"
        "<p>Pumps and\ngates 水库\nstation</p></body></html>"
    )

    markdown = client.read(page.encode(), file_name="p.html", file_type="html").markdown

    assert markdown == (
        "水库是拦洪蓄水和调节水流的水利工程建筑物，**可以利用来**灌溉。\n\n"
        "Pumps and gates 水库 station"
    )
