"""The PDF parser on PDFs generated with reportlab (and Pillow for images) in tmp_path."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas
from reportlab.platypus import (
    Paragraph,
    SimpleDocTemplate,
    Table,
    TableStyle,
)

from server.docreader.errors import ParseError
from server.docreader.parser_contract import (
    MemorySink,
    ParsedDocument,
    ParseOptions,
    parse_to_document,
)
from server.docreader.parsers.pdf import PdfParser
from server.docreader.parsers.pdf.tables import _merge, _VLine
from server.docreader.safety.limits import ParseLimits

STYLES = getSampleStyleSheet()
BODY = STYLES["BodyText"]
WIDTH, HEIGHT = letter


def parse(path: Path, **options: object) -> ParsedDocument:
    return parse_to_document(PdfParser(), path, ParseOptions(file_name=path.name, **options))  # type: ignore[arg-type]


def flat(markdown: str) -> str:
    return " ".join(markdown.split())


def table_rows(markdown: str) -> list[list[str]]:
    """The rows of the Markdown tables in ``markdown``, separator rows left out."""
    rows = []
    for line in markdown.splitlines():
        if line.startswith("|") and not re.fullmatch(r"\|( --- \|)+", line):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def encoded(width: int, height: int, color: tuple[int, int, int], kind: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format=kind)
    return buffer.getvalue()


def test_text_is_extracted_with_metadata_headings_and_hyphenation(tmp_path: Path) -> None:
    path = tmp_path / "text.pdf"
    story = [
        Paragraph("Quarterly Overview", STYLES["Heading1"]),
        Paragraph("The river sluice opened at dawn and the water rose quickly.", BODY),
        Paragraph("Engineers measured the flow every hour for three days.", BODY),
    ]
    SimpleDocTemplate(str(path), title="Flow Report", author="Ada Lovelace").build(story)
    hyphen = tmp_path / "hyphen.pdf"
    drawing = canvas.Canvas(str(hyphen))
    drawing.drawString(72, 700, "The committee reviewed the infor-")
    drawing.drawString(72, 686, "mation provided by the engineers.")
    drawing.save()

    document = parse(path)

    text = flat(document.markdown)
    assert "The river sluice opened at dawn and the water rose quickly." in text
    assert "Engineers measured the flow every hour for three days." in text
    assert "# Quarterly Overview" in document.markdown.splitlines()
    assert document.metadata["page_count"] == "1"
    assert document.metadata["title"] == "Flow Report"
    assert document.metadata["author"] == "Ada Lovelace"
    assert document.metadata["scanned_page_count"] == "0"
    assert "the information provided by the engineers." in flat(parse(hyphen).markdown)


def test_two_columns_are_read_one_after_the_other(tmp_path: Path) -> None:
    path = tmp_path / "columns.pdf"
    left = [f"Left column line {n} keeps talking about the eastern gate." for n in range(12)]
    right = [f"Right column line {n} keeps talking about the western gate." for n in range(12)]
    drawing = canvas.Canvas(str(path), pagesize=letter)
    drawing.setFont("Helvetica", 9)
    for number, (left_line, right_line) in enumerate(zip(left, right, strict=True)):
        # Drawn row by row, so the content stream interleaves the two columns.
        y = 700 - 12 * number
        drawing.drawString(60, y, left_line)
        drawing.drawString(320, y, right_line)
    drawing.save()

    text = flat(parse(path).markdown)

    assert " ".join(left) in text
    assert " ".join(right) in text
    assert text.index(left[-1]) < text.index(right[0])


def test_grid_table_becomes_a_markdown_table(tmp_path: Path) -> None:
    path = tmp_path / "table.pdf"
    data = [["City", "Country", "Population", "Area"]] + [
        [f"City{r}", f"Land{r}", str(1000 * r + 7), f"{r}.5 km2"] for r in range(1, 7)
    ]
    table = Table(data)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    story = [Paragraph("Cities of the sample.", BODY), table]
    SimpleDocTemplate(str(path)).build(story)

    document = parse(path)

    assert table_rows(document.markdown) == data
    assert "Cities of the sample." in document.markdown


def test_merged_cells_and_edge_ruled_tables(tmp_path: Path) -> None:
    path = tmp_path / "tables.pdf"
    spanned = Table([["Gate", "Flow", "Head"], ["A", "12", "3"], ["Total of all gates", "", "9"]])
    spanned.setStyle(
        TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black), ("SPAN", (0, 2), (1, 2))])
    )
    # Ruled only around the edge, under the header and between the columns.
    framed = Table([["Key", "Value"], ["alpha", "1"], ["beta", "2"], ["gamma", "3"]])
    framed.setStyle(
        TableStyle(
            [
                ("BOX", (0, 0), (-1, -1), 0.5, colors.black),
                ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black),
                ("LINEAFTER", (0, 0), (0, -1), 0.5, colors.black),
            ]
        )
    )
    SimpleDocTemplate(str(path)).build([spanned, Paragraph("Between the tables.", BODY), framed])

    rows = table_rows(parse(path).markdown)

    assert rows == [
        ["Gate", "Flow", "Head"],
        ["A", "12", "3"],
        ["Total of all gates", "", "9"],
        ["Key", "Value"],
        ["alpha", "1"],
        ["beta", "2"],
        ["gamma", "3"],
    ]


def test_repeated_headers_footers_and_page_numbers_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "running.pdf"
    drawing = canvas.Canvas(str(path), pagesize=letter)
    for page in range(1, 5):
        drawing.setFont("Helvetica", 9)
        drawing.drawString(72, HEIGHT - 40, "ACME Corp internal memo")
        # Repeated word for word: only repeated text (and page numbers) is furniture.
        drawing.drawRightString(WIDTH - 72, HEIGHT - 40, "Printed 2024-05-01")
        drawing.drawCentredString(WIDTH / 2, 30, str(page))
        drawing.setFont("Helvetica", 11)
        drawing.drawString(72, 700, f"Body text of page {page} talks about pumps.")
        drawing.showPage()
    drawing.save()

    document = parse(path)

    assert "ACME" not in document.markdown
    assert "Printed" not in document.markdown
    assert not [line for line in document.markdown.splitlines() if line.strip().isdigit()]
    for page in range(1, 5):
        assert f"Body text of page {page} talks about pumps." in document.markdown


def test_single_page_header_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "one.pdf"
    drawing = canvas.Canvas(str(path), pagesize=letter)
    drawing.drawString(72, HEIGHT - 40, "Letterhead of the water board")
    drawing.drawString(72, 700, "Dear customer, your meter was read today.")
    drawing.drawCentredString(WIDTH / 2, 30, "1")
    drawing.save()

    markdown = parse(path).markdown

    assert "Letterhead of the water board" in markdown
    assert "Dear customer, your meter was read today." in markdown
    assert "1" not in markdown.split()


def test_embedded_png_is_extracted_with_its_page(tmp_path: Path) -> None:
    path = tmp_path / "figure.pdf"
    drawing = canvas.Canvas(str(path), pagesize=letter)
    drawing.drawString(72, 700, "First page has no figure.")
    drawing.showPage()
    drawing.drawString(72, 700, "Figure below shows the dam.")
    drawing.drawImage(ImageReader(io.BytesIO(encoded(64, 48, (200, 30, 30)))), 72, 500, 128, 96)
    # A tiny image is an icon, not a figure.
    drawing.drawImage(ImageReader(io.BytesIO(encoded(8, 8, (0, 0, 255)))), 300, 500, 8, 8)
    drawing.drawString(72, 450, "Text after the figure.")
    logo = encoded(40, 30, (20, 20, 220), "JPEG")
    for page in (3, 4):
        drawing.showPage()
        drawing.drawString(72, 700, f"Page {page} carries the logo.")
        drawing.drawImage(ImageReader(io.BytesIO(logo)), 72, 600, 40, 30)
    drawing.save()

    document = parse(path)

    figure, jpeg = document.images
    assert (figure.ref, figure.mime_type, figure.page, figure.width, figure.height) == (
        "image-1.png",
        "image/png",
        2,
        64,
        48,
    )
    with Image.open(io.BytesIO(figure.data)) as decoded:
        assert decoded.size == (64, 48)
        assert decoded.convert("RGB").getpixel((10, 10)) == (200, 30, 30)
    # The JPEG stream is passed through as is, and the repeated logo extracted once.
    assert (jpeg.ref, jpeg.mime_type, jpeg.page) == ("image-2.jpg", "image/jpeg", 3)
    assert jpeg.data == logo
    text = flat(document.markdown)
    before, link, after = "Figure below shows the dam.", "![figure](image-1.png)", "Text after"
    assert text.index(before) < text.index(link) < text.index(after)
    assert text.count("![figure](image-2.jpg)") == 2
    assert document.metadata["image_count"] == "2"


def scanned_pdf(path: Path, sentence: str) -> None:
    """A one-page PDF whose only content is a page-sized image of ``sentence`` (150 dpi)."""
    picture = Image.new("L", (1275, 1650), 255)
    ImageDraw.Draw(picture).text((100, 200), sentence, fill=0, font=ImageFont.load_default(size=44))
    drawing = canvas.Canvas(str(path), pagesize=letter)
    drawing.drawImage(ImageReader(picture), 0, 0, WIDTH, HEIGHT)
    drawing.save()


def test_scanned_page_is_ocred(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    scanned_pdf(path, "The quick brown fox jumps over the lazy dog")

    document = parse(path)

    assert "quick brown fox jumps over the lazy dog" in flat(document.markdown).lower()
    assert document.metadata["scanned_page_count"] == "1"
    assert document.metadata["ocr_page_count"] == "1"
    assert document.images == []


def test_scanned_page_without_ocr_is_kept_as_an_image(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    scanned_pdf(path, "Pages without OCR stay images")

    document = parse(path, enable_ocr=False)

    assert document.markdown == "![page 1](image-1.png)"
    assert [(image.ref, image.page, image.mime_type) for image in document.images] == [
        ("image-1.png", 1, "image/png")
    ]
    assert document.metadata["scanned_page_count"] == "1"
    assert document.metadata["ocr_page_count"] == "0"


def test_pages_are_written_one_by_one(tmp_path: Path) -> None:
    path = tmp_path / "pages.pdf"
    drawing = canvas.Canvas(str(path), pagesize=letter)
    for page in range(10):
        drawing.drawString(72, 700, f"Page body number {page}.")
        drawing.showPage()
    drawing.save()
    sink = MemorySink()

    PdfParser().parse(path, ParseOptions(), sink)

    assert len(sink.parts) == 10
    assert flat("".join(sink.parts)) == " ".join(f"Page body number {n}." for n in range(10))


def test_encrypted_pdf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    drawing = canvas.Canvas(str(path), encrypt="pw")
    drawing.drawString(72, 700, "Secret plans for the sluice.")
    drawing.save()

    with pytest.raises(ParseError, match="password"):
        parse(path)
    assert "Secret plans" in parse(path, engine_options={"password": "pw"}).markdown


def test_truncated_pdf_is_refused(tmp_path: Path) -> None:
    whole = tmp_path / "whole.pdf"
    SimpleDocTemplate(str(whole)).build([Paragraph("Complete text.", BODY)])
    path = tmp_path / "cut.pdf"
    path.write_bytes(whole.read_bytes()[: whole.stat().st_size * 2 // 3])

    with pytest.raises(ParseError, match="truncated or corrupt"):
        parse(path)


@pytest.mark.parametrize("content", [os.urandom(4096), b"%PDF-1.7\n" + os.urandom(4096)])
def test_random_bytes_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "random.pdf"
    path.write_bytes(content)

    with pytest.raises(ParseError):
        parse(path)


def test_page_limit_is_checked_up_front(tmp_path: Path) -> None:
    path = tmp_path / "long.pdf"
    drawing = canvas.Canvas(str(path))
    for page in range(3):
        drawing.drawString(72, 700, f"Page {page}")
        drawing.showPage()
    drawing.save()

    with pytest.raises(ParseError, match="3 pages, more than the limit of 2"):
        parse(path, limits=ParseLimits(max_pages=2))


def test_collinear_rule_segments_merge_over_their_whole_extent() -> None:
    # Sorted by x first, the second segment starts above the first: both ends must survive.
    assert _merge([_VLine(100.0, 50, 60), _VLine(100.5, 0, 52)]) == [_VLine(100.0, 0, 60)]
