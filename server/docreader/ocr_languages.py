"""Which tesseract languages a document's images are read in.

Requested languages (a knowledge base's or an upload's ``ocr.languages``) must be installed
on this docreader: one that is not is INVALID_ARGUMENT, never a silent fallback. Without a
request, tesseract's orientation and script detection (OSD, ``--psm 0``) names the script
of the document's first image with enough text (of its first three), and the installed
languages of that script read it and the document's later images: Han → chi_sim (and
chi_tra), Cyrillic → rus and eng (Russian documents quote Latin names), Latin → eng, and so
on. When OSD cannot tell, the script of the document's own text (a PDF's text pages so far)
decides, and failing that English.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from PIL import Image

from server.docreader.errors import InvalidRequestError
from server.docreader.ocr import detect_script, installed_languages
from server.docreader.text.cjk import is_unspaced

DEFAULT_LANGUAGE = "eng"
# OSD's script names → tesseract languages written in it, most likely first.
SCRIPT_LANGUAGES: dict[str, tuple[str, ...]] = {
    "Latin": ("eng",),
    "Cyrillic": ("rus", "ukr", "bul", "srp", "eng"),
    "Han": ("chi_sim", "chi_tra"),
    "Japanese": ("jpn",),
    "Hangul": ("kor",),
    "Korean": ("kor",),
    "Arabic": ("ara",),
    "Greek": ("ell",),
    "Hebrew": ("heb",),
    "Devanagari": ("hin",),
    "Thai": ("tha",),
}
# Enough letters to tell a document's script from its text.
_TEXT_SAMPLE_LETTERS = 2_000
# Images OSD may look at per document before the text's script decides for the rest: each
# look costs a share of a page's OCR (bench/RESULTS.md (h)), and a scan it cannot tell on
# three pages is unlikely to become clear later.
_MAX_DETECTIONS = 3


def check_requested(languages: Sequence[str]) -> tuple[str, ...]:
    """``languages`` without repeats, once each is installed here (InvalidRequestError)."""
    installed = installed_languages()
    chosen = tuple(dict.fromkeys(languages))
    for language in chosen:
        if language not in installed:
            have = ", ".join(installed) if installed else "none: tesseract is not installed"
            raise InvalidRequestError(
                f"OCR language {language!r} is not installed on this docreader (installed: {have})"
            )
    return chosen


def languages_for_script(script: str | None) -> tuple[str, ...]:
    """The installed languages written in ``script``; English when there are none."""
    installed = set(installed_languages())
    found = tuple(code for code in SCRIPT_LANGUAGES.get(script or "", ()) if code in installed)
    return found or (DEFAULT_LANGUAGE,)


class OcrLanguages:
    """The languages of one document's OCR: the requested ones, or those of the script its
    first readable image is written in."""

    def __init__(self, requested: Sequence[str] = ()) -> None:
        self._requested = tuple(requested)
        self._detected: tuple[str, ...] | None = None
        self._detections = 0
        self._text_scripts: Counter[str] = Counter()

    def note_text(self, text: str) -> None:
        """Count the scripts of the document's own text, the hint when OSD cannot tell."""
        if self._requested or self._text_scripts.total() >= _TEXT_SAMPLE_LETTERS:
            return
        self._text_scripts.update(
            script for script in map(_letter_script, text[: 4 * _TEXT_SAMPLE_LETTERS]) if script
        )

    def for_image(self, image: Image.Image) -> tuple[str, ...]:
        if self._requested:
            return self._requested
        if self._detected is not None:
            return self._detected
        script = None
        if self._detections < _MAX_DETECTIONS:
            self._detections += 1
            script = detect_script(image)
        if script is not None:
            self._detected = languages_for_script(script)
            return self._detected
        common = self._text_scripts.most_common(1)
        return languages_for_script(common[0][0] if common else None)


def _letter_script(char: str) -> str | None:
    if char.isascii():
        return "Latin" if char.isalpha() else None
    if "\u0400" <= char <= "\u04ff":
        return "Cyrillic"
    if "\u3040" <= char <= "\u30ff":
        return "Japanese"
    return "Han" if is_unspaced(char) else None
