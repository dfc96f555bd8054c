"""PNG, JPEG and GIF files: the image itself, plus the text OCR finds in it.

The file becomes one original image (``image-1.<ext>``) linked from the Markdown, with the
OCR text below it when OCR is enabled and tesseract is installed (at the scale and in the
languages ``ocr_reader`` chooses). The pixel count is checked
against ``limits.max_image_pixels`` from the header before anything is decoded (Pillow's
``open`` is lazy), so a decompression bomb is refused without allocating its pixels; the
file is then verified and fully decoded once, which is what catches truncated data.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from core.image_bytes import image_size
from server.docreader.errors import ParseError
from server.docreader.ocr import tesseract_available
from server.docreader.ocr_languages import OcrLanguages
from server.docreader.ocr_reader import read_image
from server.docreader.parser_contract import DocumentSink, ParsedImage, ParseOptions

# Pillow format → (extension of the ref, MIME type); Pillow may only pick among these.
_FORMATS = {"PNG": ("png", "image/png"), "JPEG": ("jpg", "image/jpeg"), "GIF": ("gif", "image/gif")}
# Errors Pillow raises for corrupt or truncated data (SyntaxError: broken PNG chunks).
_PILLOW_ERRORS = (OSError, SyntaxError, ValueError, EOFError, IndexError)
_TRAILING_SPACES = re.compile(r"[ \t]+$", re.MULTILINE)
_EXTRA_BLANK_LINES = re.compile(r"\n{3,}")


class ImageParser:
    def __init__(self, *, ocr: bool = True) -> None:
        # The simple engine keeps just the picture: no OCR whatever the request says.
        self._ocr = ocr

    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        what = options.file_type or source.suffix.lstrip(".").lower() or "image"
        try:
            data = source.read_bytes()
        except OSError as err:
            raise ParseError(f"cannot read the {what} file: {err}") from err
        if not data:
            raise ParseError(f"the {what} file is empty")
        limit = options.limits.max_image_pixels
        # The cheap header read first; Pillow's own size is checked again before decoding.
        _check_pixels(*image_size(data), limit)
        image = _decoded(data, what, limit)
        extension, mime = _FORMATS[str(image.format)]
        ref = f"image-1.{extension}"
        sink.add_image(ParsedImage(ref, data, mime, image.width, image.height, is_original=True))
        sink.write(f"![{_alt_text(options.file_name or source.name)}]({ref})")
        sink.set_metadata("width", str(image.width))
        sink.set_metadata("height", str(image.height))
        sink.set_metadata("format", str(image.format).lower())
        if self._ocr and options.enable_ocr and tesseract_available():
            text, languages = _ocr_text(image, OcrLanguages(options.ocr_languages))
            sink.set_metadata("ocr_chars", str(len(text)))
            sink.set_metadata("ocr_languages", "+".join(languages))
            if text:
                sink.write("\n\n" + text)


def _check_pixels(width: int, height: int, limit: int) -> None:
    if width * height > limit:
        raise ParseError(
            f"decompression bomb: {width}×{height} pixels (the limit is {limit} pixels)"  # noqa: RUF001
        )


def _decoded(data: bytes, what: str, limit: int) -> Image.Image:
    """The image checked against ``limit``, verified, then decoded (a GIF: its first frame)."""
    formats = list(_FORMATS)
    try:
        with Image.open(io.BytesIO(data), formats=formats) as probe:
            _check_pixels(*probe.size, limit)
            probe.verify()
        # verify() leaves the image unusable: decoding needs a fresh one.
        image = Image.open(io.BytesIO(data), formats=formats)
        image.load()
    except UnidentifiedImageError as err:
        raise ParseError(f"not a valid {what} image: the data is not PNG, JPEG or GIF") from err
    # The warning only escapes as an exception when warnings are turned into errors.
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:
        raise ParseError(f"decompression bomb: {err}") from err
    except _PILLOW_ERRORS as err:
        raise ParseError(f"not a valid {what} image: {err}") from err
    return image


def _ocr_text(image: Image.Image, choice: OcrLanguages) -> tuple[str, tuple[str, ...]]:
    """The OCR text and the languages it was read in."""
    try:
        gray = _on_white(image).convert("L")
    except _PILLOW_ERRORS as err:
        raise ParseError(f"cannot prepare the image for OCR: {err}") from err
    read = read_image(gray, choice)
    text = _TRAILING_SPACES.sub("", read.text)
    return _EXTRA_BLANK_LINES.sub("\n\n", text).strip(), read.languages


def _on_white(image: Image.Image) -> Image.Image:
    """Transparent pixels turn black in grayscale, hiding dark text: flatten onto white."""
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, "white")
        background.alpha_composite(rgba)
        return background
    return image


def _alt_text(file_name: str) -> str:
    return file_name.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
