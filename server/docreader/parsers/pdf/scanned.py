"""Scanned pages: detected from the text layer and images, then OCRed or kept as an image.

A page is scanned when it has no text at all but draws something, or almost no text under
images covering most of the page. It is rendered (grey, 200 dpi) for tesseract when OCR is
enabled and tesseract is installed. Otherwise, or when OCR reads nothing or fails, the page
is rendered in colour at 150 dpi and kept as an image the Markdown links to, so nothing on
the page is lost.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from typing import Any

from PIL import Image

from server.docreader.errors import ParseError
from server.docreader.ocr import tesseract_available
from server.docreader.ocr_languages import OcrLanguages
from server.docreader.ocr_reader import read_image
from server.docreader.parser_contract import ParseOptions
from server.docreader.parsers.pdf.figures import PdfImages
from server.docreader.parsers.pdf.geometry import PageFrame
from server.docreader.parsers.pdf.lines import join_lines
from server.docreader.parsers.pdf.objects import PageObjects

_ALMOST_NO_TEXT = 20
_BLANKS = " \r\n\t"
_IMAGE_COVERAGE = 0.5
OCR_DPI = 200
KEEP_DPI = 150
_MAX_RENDER_PIXELS = 40_000_000


@dataclass(frozen=True)
class ScannedPage:
    blocks: list[str]
    ocr: bool
    # The languages OCR read the page in (empty without OCR).
    ocr_languages: tuple[str, ...] = ()


def is_scanned(text: str, objects: PageObjects, frame: PageFrame) -> bool:
    """Whether the page with this text layer is a scan (counting characters only if needed)."""
    if not objects.images and not objects.drawings:
        return False
    if not text.strip(_BLANKS):
        return True
    if not objects.images or visible_char_count(text) >= _ALMOST_NO_TEXT:
        return False
    page_area = frame.width * frame.height
    covered = 0.0
    for image in objects.images:
        width = min(image.box.x1, frame.width) - max(image.box.x0, 0.0)
        height = min(image.box.bottom, frame.height) - max(image.box.top, 0.0)
        covered += max(width, 0.0) * max(height, 0.0)
    return page_area > 0 and covered / page_area >= _IMAGE_COVERAGE


def visible_char_count(text: str) -> int:
    return len(text) - sum(text.count(blank) for blank in _BLANKS)


def read_scanned(
    page: Any,
    number: int,
    frame: PageFrame,
    options: ParseOptions,
    images: PdfImages,
    languages: OcrLanguages,
) -> ScannedPage:
    if options.enable_ocr and tesseract_available():
        picture = _render(page, frame, OCR_DPI, options, grayscale=True)
        chosen: tuple[str, ...] = ()
        try:
            read = read_image(picture, languages)
            text, chosen = read.text, read.languages
        except ParseError:
            text = ""
        finally:
            picture.close()
        paragraphs = [join_lines(part.splitlines()) for part in re.split(r"\n\s*\n", text)]
        blocks = [paragraph for paragraph in paragraphs if paragraph]
        if blocks:
            return ScannedPage(blocks, ocr=True, ocr_languages=chosen)
    picture = _render(page, frame, KEEP_DPI, options, grayscale=False)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=3)
    ref = images.add(buffer.getvalue(), "image/png", picture.size, number)
    picture.close()
    return ScannedPage([f"![page {number}]({ref})"], ocr=False)


def _render(
    page: Any, frame: PageFrame, dpi: int, options: ParseOptions, *, grayscale: bool
) -> Image.Image:
    limit = min(_MAX_RENDER_PIXELS, options.limits.max_image_pixels)
    scale = min(dpi / 72, math.sqrt(limit / max(frame.width * frame.height, 1.0)))
    bitmap = page.render(scale=scale, grayscale=grayscale)
    bitmap.warn_on_close = False
    try:
        picture: Image.Image = bitmap.to_pil()
        # to_pil shares the bitmap's buffer; copy before the bitmap is freed.
        return picture.convert("L" if grayscale else "RGB")
    finally:
        bitmap.close()
