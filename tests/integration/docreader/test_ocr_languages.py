"""OCR in the document's language through a real docreader and real tesseract: detected from
the script when unset, as requested otherwise, and a clear error for a language not
installed."""

# Chinese and Cyrillic letters in strings are the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas
from sluice.docreader.v1 import docreader_pb2, docreader_pb2_grpc

from server.docreader.ocr import installed_languages
from server.docreader.ocr_languages import OcrLanguages
from tests.support.ocr_images import (
    CHINESE,
    RUSSIAN,
    glyph_font_path,
    png,
    similarity,
    text_image,
)
from workers.docreader_client import DocReaderCallError, DocReaderClient, ReadConfig

# Installed by .ci/run (tesseract-ocr-rus, tesseract-ocr-chi-sim, tesseract-ocr-osd).
NEEDED = {"eng", "rus", "chi_sim"}


@pytest.fixture(scope="module")
def glyph_font() -> Path:
    assert set(installed_languages()) >= NEEDED, "tesseract language data missing (.ci/run)"
    return glyph_font_path()


def ocr_text(markdown: str) -> str:
    """The Markdown without the image link an image file becomes."""
    return "\n".join(line for line in markdown.splitlines() if not line.startswith("!["))


@pytest.mark.parametrize(
    ("lines", "languages"), [(CHINESE, "chi_sim"), (RUSSIAN, "rus+eng")], ids=["zh", "ru"]
)
def test_unset_languages_follow_the_script_tesseract_detects(
    client: DocReaderClient, glyph_font: Path, lines: list[str], languages: str
) -> None:
    outcome = client.read(png(text_image(glyph_font, lines)), file_name="p.png", file_type="png")

    assert similarity(ocr_text(outcome.markdown), lines) >= 0.9, outcome.markdown
    assert outcome.metadata["ocr_languages"] == languages


def test_requested_languages_are_used(client: DocReaderClient, glyph_font: Path) -> None:
    image = png(text_image(glyph_font, RUSSIAN))

    russian = client.read(
        image, file_name="p.png", file_type="png", config=ReadConfig(ocr_languages=("rus",))
    )
    english = client.read(
        image, file_name="p.png", file_type="png", config=ReadConfig(ocr_languages=("eng",))
    )

    assert similarity(ocr_text(russian.markdown), RUSSIAN) >= 0.9
    assert russian.metadata["ocr_languages"] == "rus"
    # Read as English the same picture is Latin letters: the request was followed.
    assert similarity(ocr_text(english.markdown), RUSSIAN) < 0.5
    assert english.metadata["ocr_languages"] == "eng"


def test_a_scanned_chinese_pdf_page_is_read_in_chinese(
    client: DocReaderClient, glyph_font: Path
) -> None:
    buffer = io.BytesIO()
    drawing = canvas.Canvas(buffer, pagesize=A4)
    width, height = A4
    scan = text_image(glyph_font, CHINESE, size=48)
    # Across the top of the page, at about 150 dpi.
    drawn = width * scan.height / scan.width
    drawing.drawImage(ImageReader(scan), 0, height - drawn, width, drawn)
    drawing.save()

    outcome = client.read(buffer.getvalue(), file_name="scan.pdf", file_type="pdf")

    assert outcome.metadata["ocr_page_count"] == "1"
    assert outcome.metadata["ocr_languages"] == "chi_sim"
    assert similarity(outcome.markdown, CHINESE) >= 0.85, outcome.markdown


def test_a_language_not_installed_is_invalid_argument_naming_the_installed_ones(
    client: DocReaderClient,
) -> None:
    with pytest.raises(DocReaderCallError) as failure:
        client.read(
            png(Image.new("L", (50, 50), 255)),
            file_name="p.png",
            file_type="png",
            config=ReadConfig(ocr_languages=("eng", "xyz")),
        )

    assert failure.value.code_name == "INVALID_ARGUMENT"
    assert "OCR language 'xyz' is not installed on this docreader" in failure.value.message
    assert "chi_sim, eng, rus" in failure.value.message


def test_languages_are_not_checked_when_ocr_is_off(client: DocReaderClient) -> None:
    outcome = client.read(
        png(Image.new("L", (50, 50), 255)),
        file_name="p.png",
        file_type="png",
        config=ReadConfig(enable_ocr=False, ocr_languages=("xyz",)),
    )

    assert outcome.markdown == "![p.png](image-1.png)"


def test_list_engines_reports_the_installed_ocr_languages(
    stub: docreader_pb2_grpc.DocReaderServiceStub,
) -> None:
    response = stub.ListEngines(docreader_pb2.ListEnginesRequest(), timeout=30)

    assert set(response.ocr_languages) >= NEEDED
    assert "osd" not in response.ocr_languages
    assert list(response.ocr_languages) == sorted(response.ocr_languages)


def test_without_a_detectable_script_the_documents_text_decides_what_is_tried_first() -> None:
    # A blank page gives OSD nothing to detect; the text read so far was Russian.
    blank = Image.new("L", (600, 400), 255)
    choice = OcrLanguages()
    choice.note_text("Отчёт о работе насосной станции за третий квартал. Page 3")

    assert choice.candidates(blank) == (("rus", "eng"), ("chi_sim",))
    assert OcrLanguages().candidates(blank) == (("eng",), ("rus", "eng"), ("chi_sim",))
    assert OcrLanguages(("chi_sim",)).candidates(blank) == (("chi_sim",),)


def test_languages_are_tried_on_three_images_at_most(glyph_font: Path) -> None:
    blank = Image.new("L", (600, 400), 255)
    choice = OcrLanguages()
    for _ in range(3):
        assert len(choice.candidates(blank)) == 3
    # OSD would see Cyrillic here, but nothing settled in three tries: the first candidate.
    assert choice.candidates(text_image(glyph_font, RUSSIAN)) == (("eng",),)
    assert OcrLanguages().candidates(text_image(glyph_font, RUSSIAN))[0] == ("rus", "eng")


def test_settled_languages_read_the_documents_later_images(glyph_font: Path) -> None:
    choice = OcrLanguages()
    choice.settle(("chi_sim",))

    assert choice.candidates(text_image(glyph_font, RUSSIAN)) == (("chi_sim",),)
