"""Optical character recognition with the tesseract command-line tool.

The image is piped in as PNG and tesseract's word table (TSV) read from stdout; a run that
overruns its time limit is killed. ``languages`` are tesseract's codes ("eng", "rus",
"chi_sim"). The table gives the text (words joined into lines, lines into paragraphs) and
what the choice of scale and languages needs: each word's confidence and height. Tesseract
puts a space between Chinese characters and breaks lines inside Chinese sentences; both are
taken out, so a name wrapped onto the next line stays one word for search.
"""

from __future__ import annotations

import io
import re
import shutil
import statistics
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby

from PIL import Image

from server.docreader.errors import ParseError
from server.docreader.text.cjk import is_unspaced

TESSERACT = "tesseract"
DEFAULT_TIMEOUT_S = 180.0
# The orientation and script detection data: no language of its own.
OSD = "osd"
_SCRIPT = re.compile(r"^Script: (\w+)", re.MULTILINE)
_LIST_TIMEOUT_S = 30.0
# The TSV's columns: level page block paragraph line word left top width height conf text.
_TSV_COLUMNS = 12
_WORD_LEVEL = "5"


@dataclass(frozen=True)
class OcrRead:
    """What one tesseract run read: the text ("" when none), the mean confidence of its words
    (0-100, weighted by their lengths; 0 without words) and their median height in pixels
    (None without words)."""

    text: str
    confidence: float
    word_height: float | None


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
) -> OcrRead:
    """What tesseract reads in ``image`` in ``languages``."""
    done = _run(image, ["-l", "+".join(languages), "--psm", "3", "tsv"], timeout_s, "OCR")
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ParseError(f"OCR failed: {message[-1] if message else done.returncode}")
    return _from_tsv(done.stdout.decode("utf-8", "replace"))


@dataclass(frozen=True)
class _Word:
    paragraph: tuple[str, str]  # block and paragraph numbers
    line: str
    text: str
    confidence: float
    height: float


def _words(table: str) -> list[_Word]:
    words = []
    for row in table.splitlines()[1:]:
        cells = row.split("\t", _TSV_COLUMNS - 1)
        if len(cells) == _TSV_COLUMNS and cells[0] == _WORD_LEVEL and cells[11].strip():
            words.append(
                _Word(
                    (cells[2], cells[3]),
                    cells[4],
                    cells[11].strip(),
                    max(float(cells[10]), 0.0),
                    float(cells[9]),
                )
            )
    return words


def _joined(parts: list[str], separator: str) -> str:
    """``parts`` joined by ``separator``, but directly where either side is Chinese or
    Japanese (tesseract makes each ideograph, and a number in Chinese text, a word)."""
    text = parts[0]
    for part in parts[1:]:
        unspaced = is_unspaced(text[-1]) or is_unspaced(part[0])
        text += part if unspaced else separator + part
    return text


def _from_tsv(table: str) -> OcrRead:
    words = _words(table)
    paragraphs = []
    for _, in_paragraph in groupby(words, key=lambda w: w.paragraph):
        text = ""
        for _, in_line in groupby(in_paragraph, key=lambda w: w.line):
            line = _joined([w.text for w in in_line], " ")
            # A line break inside a Chinese sentence is layout, not a word boundary.
            text = _joined([text, line], "\n") if text else line
        paragraphs.append(text)
    letters = sum(len(w.text) for w in words)
    confidence = sum(w.confidence * len(w.text) for w in words) / letters if letters else 0.0
    height = statistics.median(w.height for w in words) if words else None
    return OcrRead("\n\n".join(paragraphs), confidence, height)


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
