"""Pictures for the recall corpus: text drawn black on white in a font with Latin, Cyrillic
and Chinese glyphs (WenQuanYi Zen Hei, Debian's ``fonts-wqy-zenhei``), at a size tesseract
reads; and PDFs whose pages are such pictures only (what a scanner makes)."""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

# The one font here with glyphs for all three languages; reportlab embeds it in PDFs too.
FONT_PATH = Path("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc")
_FONT_PX = 48
_MARGIN = 40
_LINE_PX = 70
_MIN_WIDTH = 600
_SCAN_DPI = 200


@cache
def _font() -> ImageFont.FreeTypeFont:
    if not FONT_PATH.exists():
        raise RuntimeError(
            f"the recall corpus draws text with {FONT_PATH}: apt-get install fonts-wqy-zenhei"
        )
    return ImageFont.truetype(str(FONT_PATH), _FONT_PX)


def text_picture(lines: tuple[str, ...]) -> Image.Image:
    font = _font()
    width = max(_MIN_WIDTH, max(int(font.getlength(line)) for line in lines) + 2 * _MARGIN)
    image = Image.new("L", (width, 2 * _MARGIN + _LINE_PX * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        draw.text((_MARGIN, _MARGIN + n * _LINE_PX), line, fill=0, font=font)
    return image


def picture_png(lines: tuple[str, ...]) -> bytes:
    buffer = io.BytesIO()
    text_picture(lines).save(buffer, format="PNG")
    return buffer.getvalue()


def write_picture(path: Path, lines: tuple[str, ...], file_type: str) -> None:
    image = text_picture(lines)
    if file_type == "png":
        image.save(path, format="PNG")
    else:
        image.convert("RGB").save(path, format="JPEG", quality=90)


def write_scanned_pdf(path: Path, pages: list[tuple[str, ...]]) -> None:
    """One A4-sized page per entry of ``pages``: the lines drawn on a white page picture
    at 200 dpi, no text layer."""
    a4 = (int(8.27 * _SCAN_DPI), int(11.69 * _SCAN_DPI))
    images = []
    for lines in pages:
        page = Image.new("L", a4, 255)
        page.paste(text_picture(lines), (_MARGIN * 3, _MARGIN * 4))
        images.append(page.convert("RGB"))
    images[0].save(
        path, format="PDF", resolution=_SCAN_DPI, save_all=True, append_images=images[1:]
    )
