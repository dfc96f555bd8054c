"""Reading the text in one image: at a scale tesseract reads well, in the languages that fit.

Scale. Tesseract reads words whose boxes are about 14 to 50 pixels tall; much smaller glyphs
lose strokes, much larger ones are misread too (a 7 in 48-pixel text doubled in size came
out "/"). The first read at the image's own size measures the median word height; when it is
below ``_MIN_WORD_PX`` the image is enlarged to bring it to ``_TARGET_WORD_PX`` (at most
4 times, and to ``_MAX_SIDE_PX``) and read again. An image in which no word was found at all
is doubled when small, in case its text was too small to find.

Languages: ``OcrLanguages.candidates`` in turn (chosen again when the image was enlarged and
OSD had named no script in it), until a read fits its languages (confident,
in their scripts); when none fits, the best read is kept: one in its languages' scripts
before one that is not, then the most confident.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from server.docreader.errors import ParseError
from server.docreader.ocr import ocr_image
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
    candidates = choice.candidates(image)
    read = ocr_image(image, languages=candidates[0])
    scale = _scale(read.word_height, image.size)
    if scale > 1.0:
        image = _enlarged(image, scale)
        candidates = choice.candidates_enlarged(image, candidates)
        read = ocr_image(image, languages=candidates[0])
    reads = []
    for number, languages in enumerate(candidates):
        if number:
            read = ocr_image(image, languages=languages)
        if fits(languages, read.text, read.confidence):
            choice.settle(languages)
            return ImageText(read.text, languages)
        reads.append((languages, read))
    languages, read = max(reads, key=lambda r: (in_scripts(r[0], r[1].text), r[1].confidence))
    return ImageText(read.text, languages)


def _scale(word_height: float | None, size: tuple[int, int]) -> float:
    """How much to enlarge an image of ``size`` whose words are ``word_height`` tall."""
    longer = max(size)
    if word_height is None:
        scale = 2.0 if longer < _SMALL_IMAGE_PX else 1.0
    elif word_height < _MIN_WORD_PX:
        scale = min(_TARGET_WORD_PX / max(word_height, 1.0), _MAX_SCALE)
    else:
        scale = 1.0
    return min(scale, _MAX_SIDE_PX / longer)


def _enlarged(image: Image.Image, scale: float) -> Image.Image:
    try:
        size = (round(image.width * scale), round(image.height * scale))
        return image.resize(size, Image.Resampling.LANCZOS)
    except _PILLOW_ERRORS as err:
        raise ParseError(f"cannot enlarge the image for OCR: {err}") from err
