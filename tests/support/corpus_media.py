"""Corpus images and audio: the sentences rendered for OCR, a figure to embed, a WAV tone.

Images carry their sentences as large black text on white (Pillow's scalable default font at
48 px), at least 400 px wide, so tesseract reads them back verbatim. Audio cannot carry known
sentences without a speech synthesiser; the WAV is a short tone that exercises the audio path.
"""

from __future__ import annotations

import io
import math
import struct
import wave
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from tests.support.corpus_content import CorpusFile

_FONT_PX = 48
_MARGIN = 40
_LINE_PX = 70
_MIN_WIDTH = 400
_PIL_FORMATS = {"png": "PNG", "jpg": "JPEG", "jpeg": "JPEG", "gif": "GIF"}


def text_image(lines: tuple[str, ...]) -> Image.Image:
    font = ImageFont.load_default(size=_FONT_PX)
    width = max(_MIN_WIDTH, max(int(font.getlength(line)) for line in lines) + 2 * _MARGIN)
    image = Image.new("L", (width, 2 * _MARGIN + _LINE_PX * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        draw.text((_MARGIN, _MARGIN + n * _LINE_PX), line, fill=0, font=font)
    return image


def figure_png() -> bytes:
    """A small picture to embed in documents (its caption is readable, should a parser OCR it)."""
    buffer = io.BytesIO()
    text_image(("heron figure",)).save(buffer, format="PNG")
    return buffer.getvalue()


def build_image(path: Path, file_type: str, sentences: tuple[str, str]) -> CorpusFile:
    image = text_image(sentences)
    if file_type == "gif":
        image.convert("P").save(path, format="GIF")
    elif file_type == "png":
        image.save(path, format="PNG")
    else:
        image.convert("RGB").save(path, format=_PIL_FORMATS[file_type], quality=92)
    # The picture itself: an image reader hands back the original.
    return CorpusFile(path, file_type, sentences, (), images=1)


def build_wav(path: Path, seconds: float = 1.0, rate: int = 16_000) -> CorpusFile:
    """One second of a 440 Hz tone, 16-bit mono: what the ASR path is fed."""
    frames = b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * n / rate)))
        for n in range(int(seconds * rate))
    )
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)
    return CorpusFile(path, "wav", (), ())
