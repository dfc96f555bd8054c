"""Reading the text in one image: at a scale tesseract reads well, in the languages that fit.

Scale. Tesseract reads words whose boxes are about 14 to 50 pixels tall; much smaller glyphs
lose strokes, much larger ones are misread too (a 7 in 48-pixel text doubled in size came
out "/"). The first read at the image's own size measures the median word height; when it is
below ``_MIN_WORD_PX`` the image is enlarged to bring it to ``_TARGET_WORD_PX`` (at most
4 times, and to ``_MAX_SIDE_PX``) and read again. An image in which no word was found at all
is doubled when small, in case its text was too small to find.

Languages: ``OcrLanguages.candidates`` in turn, until a read fits its languages (confident,
in their scripts); when none fits, the best read is kept: one in its languages' scripts
before one that is not, then the most confident.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from server.docreader.errors import ParseError
from server.docreader.ocr import OcrRead, ocr_image
from server.docreader.ocr_languages import OcrLanguages, fits, in_scripts

_MIN_WORD_PX = 16.0
_TARGET_WORD_PX = 24.0
_MAX_SCALE = 4.0
_MAX_SIDE_PX = 5000
# Images no word was found in are doubled when their longer side is shorter than this.
_SMALL_IMAGE_PX = 1000
# Errors Pillow raises resizing a broken image.
_PILLOW_ERRORS = (OSError, ValueError)


@dataclass(frozen=True)
class ImageText:
    text: str
    # The languages the text was read in.
    languages: tuple[str, ...]


def read_image(image: Image.Image, choice: OcrLanguages) -> ImageText:
    """The text in ``image`` (grayscale, dark text on light), read as the module says."""
    reads = []
    scaled: Image.Image | None = None
    for languages in choice.candidates(image):
        if scaled is None:
            scaled, read = _at_readable_scale(image, languages)
        else:
            read = ocr_image(scaled, languages=languages)
        if fits(languages, read.text, read.confidence):
            choice.settle(languages)
            return ImageText(read.text, languages)
        reads.append((languages, read))
    languages, read = max(reads, key=lambda r: (in_scripts(r[0], r[1].text), r[1].confidence))
    return ImageText(read.text, languages)


def _at_readable_scale(
    image: Image.Image, languages: tuple[str, ...]
) -> tuple[Image.Image, OcrRead]:
    """``image`` at the scale its text reads best, and what it reads in ``languages``."""
    read = ocr_image(image, languages=languages)
    longer = max(image.size)
    if read.word_height is None:
        scale = 2.0 if longer < _SMALL_IMAGE_PX else 1.0
    elif read.word_height < _MIN_WORD_PX:
        scale = min(_TARGET_WORD_PX / max(read.word_height, 1.0), _MAX_SCALE)
    else:
        scale = 1.0
    scale = min(scale, _MAX_SIDE_PX / longer)
    if scale <= 1.0:
        return image, read
    try:
        size = (round(image.width * scale), round(image.height * scale))
        enlarged = image.resize(size, Image.Resampling.LANCZOS)
    except _PILLOW_ERRORS as err:
        raise ParseError(f"cannot enlarge the image for OCR: {err}") from err
    return enlarged, ocr_image(enlarged, languages=languages)
