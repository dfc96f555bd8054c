"""How the docreader's OCR reads a picture, with real tesseract on text drawn in WenQuanYi
Zen Hei: the scale follows the text's height (large text is not enlarged into misreads,
small text is), the languages are the ones that read it confidently (not what OSD guesses
on two short lines), and Chinese lines wrapped by the layout are joined."""

# Chinese and Cyrillic letters in strings are the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from server.docreader.ocr import detect_script, installed_languages, ocr_image
from server.docreader.ocr_languages import OcrLanguages
from server.docreader.ocr_reader import read_image
from tests.support.ocr_images import glyph_font_path, png, similarity
from workers.docreader_client import DocReaderClient

NEEDED = {"eng", "rus", "chi_sim"}


@pytest.fixture(scope="module")
def glyph_font() -> Path:
    assert set(installed_languages()) >= NEEDED, "tesseract language data missing (.ci/run)"
    return glyph_font_path()


def picture(font_path: Path, lines: list[str], size: int) -> Image.Image:
    """``lines`` black on white, as tight as a picture in a document (a margin of one line)."""
    font = ImageFont.truetype(str(font_path), size)
    pitch = int(size * 1.45)
    width = max(int(font.getlength(line)) for line in lines) + 2 * size
    image = Image.new("L", (width, 2 * size + pitch * len(lines)), 255)
    drawing = ImageDraw.Draw(image)
    for number, line in enumerate(lines):
        drawing.text((size, size + number * pitch), line, font=font, fill=0)
    return image


def ocr_text(markdown: str) -> str:
    return "\n".join(line for line in markdown.splitlines() if not line.startswith("!["))


def test_large_digits_are_read_at_the_pictures_own_size(
    client: DocReaderClient, glyph_font: Path
) -> None:
    # 48 px text in a picture under 1000 px: doubled in size, tesseract read 7377 as "73/7/"
    # and 7609 as "(609".
    lines = ["The mine near Quelbeleth yields 7377", "tonnes of ore; the tower cost 7609."]
    image = picture(glyph_font, lines, 48)
    assert max(image.size) < 1000

    outcome = client.read(png(image), file_name="p.png", file_type="png")

    text = ocr_text(outcome.markdown)
    assert "7377" in text and "7609" in text, text
    assert similarity(text, lines) >= 0.95, text


def test_small_text_is_enlarged_before_it_is_read(glyph_font: Path) -> None:
    lines = [
        "The inspector measures the wooden footbridge",
        "twice a month and repaired 5666 rowing boats.",
    ]
    image = picture(glyph_font, lines, 10)
    at_own_size = ocr_image(image, languages=("eng",))
    assert at_own_size.word_height is not None and at_own_size.word_height < 10

    read = read_image(image, OcrLanguages())

    assert read.languages == ("eng",)
    assert similarity(read.text, lines) >= 0.95, read.text
    assert similarity(read.text, lines) > similarity(at_own_size.text, lines)


def test_two_short_chinese_lines_are_read_in_chinese_whatever_osd_says(
    client: DocReaderClient, glyph_font: Path
) -> None:
    lines = ["滕澈漪在霁澜镇的船厂修好了", "3979条木制划艇。"]
    image = picture(glyph_font, lines, 48)
    # OSD cannot tell this one's script (it names none, or Latin, or Japanese).
    assert detect_script(image) != "Han"

    outcome = client.read(png(image), file_name="p.png", file_type="png")

    assert outcome.metadata["ocr_languages"] == "chi_sim"
    text = ocr_text(outcome.markdown)
    assert "3979条木制划艇" in text, text
    assert similarity(text, lines) >= 0.75, text


def test_a_chinese_sentence_wrapped_onto_two_lines_is_one_line_of_text(glyph_font: Path) -> None:
    lines = ["水库是调节水流的水利工", "程建筑物，可以用来发电。"]

    read = read_image(picture(glyph_font, lines, 36), OcrLanguages(("chi_sim",)))

    assert "水利工程建筑物" in read.text, read.text
    assert "\n" not in read.text


def test_the_read_languages_settle_for_the_documents_later_pictures(glyph_font: Path) -> None:
    russian = ["Водохранилище задерживает паводковые", "воды и снабжает водой три города."]
    choice = OcrLanguages()

    first = read_image(picture(glyph_font, russian, 36), choice)

    assert first.languages == ("rus", "eng")
    assert similarity(first.text, russian) >= 0.95, first.text
    assert choice.candidates(Image.new("L", (100, 100), 255)) == (("rus", "eng"),)


def test_a_read_in_the_right_languages_is_confident_and_a_wrong_one_is_not(
    glyph_font: Path,
) -> None:
    image = picture(glyph_font, ["郦珩琛在湄柘堡上方的梯田里", "种下了5770棵橄榄树。"], 48)

    chinese = ocr_image(image, languages=("chi_sim",))
    english = ocr_image(image, languages=("eng",))

    assert chinese.confidence >= 70 > english.confidence
    # The word boxes are about as tall as the glyphs.
    assert chinese.word_height is not None and 30 <= chinese.word_height <= 60


def test_small_russian_text_is_read_in_russian_once_enlarged(glyph_font: Path) -> None:
    lines = ["Водохранилище задерживает паводковые", "воды и снабжает водой три города."]
    image = picture(glyph_font, lines, 12)
    # At this size OSD names no script; in the enlarged picture it sees Cyrillic.
    assert detect_script(image) is None

    read = read_image(image, OcrLanguages())

    assert read.languages == ("rus", "eng")
    assert similarity(read.text, lines) >= 0.9, read.text
