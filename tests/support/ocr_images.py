"""Pictures of Chinese and Russian text for OCR tests, drawn with a font that has the glyphs
(WenQuanYi Zen Hei, from the fonts-wqy-zenhei package that .ci/run installs)."""

# Chinese and Cyrillic letters in strings are the point of these helpers.
# ruff: noqa: RUF001

from __future__ import annotations

import difflib
import io
import subprocess
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

CHINESE = ["水库是调节水流的水利工程建筑物，", "可以利用来灌溉、发电、防洪和养鱼。"]
RUSSIAN = ["Водохранилище задерживает паводковые воды", "и снабжает водой три города."]


def glyph_font_path() -> Path:
    listed = subprocess.run(
        ["fc-list", ":lang=zh", "file"], capture_output=True, text=True, check=True
    ).stdout.split()
    files = [Path(line.rstrip(":")) for line in listed if "wqy-zenhei" in line]
    assert files, "no WenQuanYi Zen Hei font: apt-get install fonts-wqy-zenhei (see .ci/run)"
    return files[0]


def text_image(font_path: Path, lines: list[str], size: int = 36) -> Image.Image:
    font = ImageFont.truetype(str(font_path), size)
    pitch = int(size * 1.8)
    image = Image.new("L", (1200, 60 + len(lines) * pitch), 255)
    drawing = ImageDraw.Draw(image)
    for number, line in enumerate(lines):
        drawing.text((40, 30 + number * pitch), line, font=font, fill=0)
    return image


def png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def similarity(read: str, expected: list[str]) -> float:
    """How close the OCR text is to the expected lines, whitespace aside (1.0: the same)."""
    return difflib.SequenceMatcher(
        None, "".join(read.split()), "".join("".join(expected).split())
    ).ratio()
