"""Optical character recognition with the tesseract command-line tool.

The image is piped in as PNG and the text read from stdout; a run that overruns its time
limit is killed. ``languages`` uses tesseract's codes ("eng", "eng+rus").
"""

from __future__ import annotations

import io
import shutil
import subprocess

from PIL import Image

from server.docreader.errors import ParseError

TESSERACT = "tesseract"
DEFAULT_LANGUAGES = "eng"
DEFAULT_TIMEOUT_S = 180.0


def tesseract_available() -> bool:
    return shutil.which(TESSERACT) is not None


def ocr_image(
    image: Image.Image,
    *,
    languages: str = DEFAULT_LANGUAGES,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> str:
    """The text tesseract reads in ``image`` (stripped; "" when it finds none)."""
    if not tesseract_available():
        raise ParseError("OCR needs the tesseract program, which is not installed here")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    try:
        done = subprocess.run(
            [TESSERACT, "stdin", "stdout", "-l", languages, "--psm", "3"],
            input=buffer.getvalue(),
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise ParseError(f"OCR took longer than {timeout_s:.0f} s and was stopped") from err
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ParseError(f"OCR failed: {message[-1] if message else done.returncode}")
    return done.stdout.decode("utf-8", "replace").strip()
