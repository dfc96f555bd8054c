"""PptxParser on decks generated with python-pptx: slide titles, bullet levels, numbered text,
tables with merged cells, pictures, group shapes in reading order, speaker notes, metadata,
slide-by-slide output, and broken files."""

from __future__ import annotations

import io
import os
from pathlib import Path

import docx
import pptx
import pytest
from PIL import Image
from pptx.oxml import parse_xml
from pptx.util import Inches

from server.docreader.errors import ParseError
from server.docreader.parser_contract import (
    MemorySink,
    ParsedDocument,
    ParseOptions,
    parse_to_document,
)
from server.docreader.parsers.office.pptx import PptxParser

EXPECTED_MARKDOWN = """\
## Slide 1: Roadmap 2027

Where we are going

## Slide 2: Goals

- Grow revenue
  - In Europe
- Hire engineers

> Notes: Mention the budget.
> Keep it short.

## Slide 3: Numbers

| Wide | Wide | r0c2 |
| --- | --- | --- |
| r1c0 | r1c1 | Tall |
| r2c0 | r2c1 | Tall |

## Slide 4

![image](image-1.png)

1. First step
2. Second step

Below the picture

Group left

Group right"""

_AUTO_NUMBER = (
    '<a:buAutoNum xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'type="arabicPeriod"/>'
)


def _png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (10, 120, 200)).save(buffer, "PNG")
    return buffer.getvalue()


def build_sample(path: Path, png: bytes) -> None:
    deck = pptx.Presentation()
    deck.core_properties.title = "Roadmap"
    deck.core_properties.author = "Grace Hopper"

    slide = deck.slides.add_slide(deck.slide_layouts[0])
    slide.shapes.title.text = "Roadmap 2027"
    slide.placeholders[1].text = "Where we are going"

    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Goals"
    frame = slide.placeholders[1].text_frame
    frame.text = "Grow revenue"
    for text, level in [("In Europe", 1), ("Hire engineers", 0)]:
        paragraph = frame.add_paragraph()
        paragraph.text = text
        paragraph.level = level
    slide.notes_slide.notes_text_frame.text = "Mention the budget.\nKeep it short."

    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Numbers"
    table = slide.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for row in range(3):
        for column in range(3):
            table.cell(row, column).text = f"r{row}c{column}"
    table.cell(0, 0).merge(table.cell(0, 1))
    table.cell(0, 0).text = "Wide"
    table.cell(1, 2).merge(table.cell(2, 2))
    table.cell(1, 2).text = "Tall"

    # Added out of reading order: the parser sorts by position.
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    box = slide.shapes.add_textbox(Inches(1), Inches(4), Inches(4), Inches(1))
    box.text_frame.text = "Below the picture"
    steps = slide.shapes.add_textbox(Inches(5), Inches(1), Inches(4), Inches(1)).text_frame
    steps.text = "First step"
    steps.add_paragraph().text = "Second step"
    for paragraph in steps.paragraphs:
        paragraph._p.get_or_add_pPr().append(parse_xml(_AUTO_NUMBER))
    slide.shapes.add_picture(io.BytesIO(png), Inches(1), Inches(1))
    group = slide.shapes.add_group_shape()
    right = group.shapes.add_textbox(Inches(6), Inches(5), Inches(2), Inches(1))
    right.text_frame.text = "Group right"
    left = group.shapes.add_textbox(Inches(1), Inches(5), Inches(2), Inches(1))
    left.text_frame.text = "Group left"
    deck.save(str(path))


def _parse(path: Path) -> ParsedDocument:
    return parse_to_document(PptxParser(), path, ParseOptions(file_name=path.name))


@pytest.fixture(scope="module")
def png() -> bytes:
    return _png(64, 48)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, png: bytes) -> Path:
    path = tmp_path_factory.mktemp("pptx") / "deck.pptx"
    build_sample(path, png)
    return path


def test_markdown_structure(sample: Path) -> None:
    assert _parse(sample).markdown == EXPECTED_MARKDOWN


def test_picture_is_an_image_of_its_slide(sample: Path, png: bytes) -> None:
    images = _parse(sample).images
    assert len(images) == 1
    image = images[0]
    assert (image.ref, image.mime_type, image.width, image.height, image.page) == (
        "image-1.png",
        "image/png",
        64,
        48,
        4,
    )
    assert image.data == png


def test_metadata(sample: Path) -> None:
    assert _parse(sample).metadata == {
        "title": "Roadmap",
        "author": "Grace Hopper",
        "slide_count": "4",
        "image_count": "1",
    }


def test_output_is_written_slide_by_slide(sample: Path) -> None:
    sink = MemorySink()
    PptxParser().parse(sample, ParseOptions(), sink)
    headings = [i for i, part in enumerate(sink.parts) if "## Slide" in part]
    # Each slide heading is a write of its own, after the previous slide's content.
    assert len(headings) == 4
    before_second = "".join(sink.parts[: headings[1]])
    assert before_second.endswith("Where we are going")
    assert "Goals" not in before_second


def test_truncated_file_is_refused(sample: Path, tmp_path: Path) -> None:
    data = sample.read_bytes()
    path = tmp_path / "truncated.pptx"
    path.write_bytes(data[: len(data) // 3])
    with pytest.raises(ParseError, match="not a valid zip"):
        _parse(path)


def test_random_bytes_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "random.pptx"
    path.write_bytes(os.urandom(4096))
    with pytest.raises(ParseError):
        _parse(path)


def test_docx_is_not_a_presentation(tmp_path: Path) -> None:
    path = tmp_path / "letter.pptx"
    docx.Document().save(str(path))
    with pytest.raises(ParseError, match="cannot be opened as a presentation"):
        _parse(path)


def test_slides_with_nothing_on_them_write_nothing(tmp_path: Path) -> None:
    """No invented content: blank slides (a new deck's only slide, say) leave no heading,
    so an empty presentation reads as empty; a blank slide between others is skipped."""
    deck = pptx.Presentation()
    blank = deck.slide_layouts[6]
    deck.slides.add_slide(blank)
    path = tmp_path / "blank.pptx"
    deck.save(str(path))
    assert _parse(path).markdown == ""
    second = deck.slides.add_slide(blank)
    box = second.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1))
    box.text_frame.text = "Only the second slide says something"
    deck.slides.add_slide(blank)
    deck.save(str(path))
    assert _parse(path).markdown == "## Slide 2\n\nOnly the second slide says something"
