"""Optical character recognition with the tesseract command-line tool.

The image is piped in as PNG and the text read from stdout; a run that overruns its time
limit is killed. ``languages`` are tesseract's codes ("eng", "rus", "chi_sim"). Tesseract
puts a space between Chinese characters; those spaces are taken out.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image

from server.docreader.errors import ParseError
from server.docreader.text.cjk import without_inner_spaces

TESSERACT = "tesseract"
DEFAULT_TIMEOUT_S = 180.0
# The orientation and script detection data: no language of its own.
OSD = "osd"
_SCRIPT = re.compile(r"^Script: (\w+)", re.MULTILINE)
_LIST_TIMEOUT_S = 30.0


def tesseract_available() -> bool:
    return shutil.which(TESSERACT) is not None


@lru_cache(maxsize=1)
def installed_data() -> frozenset[str]:
    """The language data tesseract has here ("osd" among them when installed); none without
    tesseract."""
    if not tesseract_available():
        return frozenset()
    try:
        done = subprocess.run(
            [TESSERACT, "--list-langs"], capture_output=True, timeout=_LIST_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        return frozenset()
    # The first line is 'List of available languages in "/usr/share/...tessdata/" (4):'.
    lines = done.stdout.decode("utf-8", "replace").splitlines()[1:]
    return frozenset(line.strip() for line in lines if line.strip())


def installed_languages() -> tuple[str, ...]:
    """The OCR languages installed here, sorted."""
    return tuple(sorted(installed_data() - {OSD}))


def ocr_image(
    image: Image.Image, *, languages: Sequence[str], timeout_s: float = DEFAULT_TIMEOUT_S
) -> str:
    """The text tesseract reads in ``image`` in ``languages`` (stripped; "" when none)."""
    done = _run(image, ["-l", "+".join(languages), "--psm", "3"], timeout_s, "OCR")
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ParseError(f"OCR failed: {message[-1] if message else done.returncode}")
    return without_inner_spaces(done.stdout.decode("utf-8", "replace")).strip()


def detect_script(image: Image.Image, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> str | None:
    """The script tesseract's OSD sees in ``image`` ("Latin", "Han", "Cyrillic"...); None
    without OSD data or when the image has too little text to tell."""
    if OSD not in installed_data():
        return None
    done = _run(image, ["-l", OSD, "--psm", "0"], timeout_s, "script detection")
    found = _SCRIPT.search(done.stdout.decode("utf-8", "replace"))
    return found.group(1) if done.returncode == 0 and found else None


def _run(
    image: Image.Image, arguments: list[str], timeout_s: float, what: str
) -> subprocess.CompletedProcess[bytes]:
    if not tesseract_available():
        raise ParseError("OCR needs the tesseract program, which is not installed here")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    try:
        return subprocess.run(
            [TESSERACT, "stdin", "stdout", *arguments],
            input=buffer.getvalue(),
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise ParseError(f"{what} took longer than {timeout_s:.0f} s and was stopped") from err
