"""Which tesseract languages a document's images are read in.

Requested languages (a knowledge base's or an upload's ``ocr.languages``) must be installed
on this docreader: one that is not is INVALID_ARGUMENT, never a silent fallback. Without a
request, the languages are tried in turn (``candidates``): first those of the script
tesseract's orientation and script detection (OSD, ``--psm 0``) names, then those of the
script of the document's own text (a PDF's text pages so far), then the other installed
scripts' (Han → chi_sim and chi_tra, Cyrillic → rus and eng, as Russian documents quote
Latin names, Latin → eng, and so on). OSD alone is not trusted: on a picture of a line or two
it names the wrong script (Latin, Japanese for two lines of Chinese) or none. A read ``fits``
its languages when tesseract is confident of its words and its letters are in their
scripts; the first read that fits settles the languages for the document's later images.
A document whose first three images settle nothing reads the rest in its first candidate.
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
# OSD's scripts whose text holds the letters of another (Japanese: kana and kanji).
_LETTER_SCRIPTS = {"Japanese": ("Japanese", "Han")}
# The mean word confidence (0-100) of a read in the right languages. Measured on pictures
# of English, Russian and Chinese text: the right languages read them at 71-96, the wrong
# ones at 5-65, or in letters of another script (chi_sim reads English at 79-91).
_CONFIDENT = 70.0
# The languages tried on one image at most.
_MAX_CANDIDATES = 3
# Enough letters to tell a document's script from its text.
_TEXT_SAMPLE_LETTERS = 2_000
# Images per document whose languages are tried before the first candidate reads the rest:
# each try costs OSD and up to _MAX_CANDIDATES reads (bench/RESULTS.md (h)), and a scan
# nothing fits on three pages is unlikely to become clear later.
_MAX_TRIES = 3


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


def _script_of(language: str) -> str | None:
    return next((script for script, codes in SCRIPT_LANGUAGES.items() if language in codes), None)


def fits(languages: Sequence[str], text: str, confidence: float) -> bool:
    """Whether a read of ``text`` at ``confidence`` is what ``languages`` should give: confident,
    and most of its letters in their scripts (a read with no letters: confidence alone)."""
    return confidence >= _CONFIDENT and in_scripts(languages, text)


def in_scripts(languages: Sequence[str], text: str) -> bool:
    """Whether most of ``text``'s letters are in the scripts of ``languages`` (or it has
    none whose script is known here)."""
    counted = Counter(script for script in map(_letter_script, text) if script)
    if not counted:
        return True
    allowed = {
        letters
        for language in languages
        for letters in _LETTER_SCRIPTS.get(_script_of(language) or "", (_script_of(language),))
    }
    return counted.most_common(1)[0][0] in allowed


class OcrLanguages:
    """The languages of one document's OCR: the requested ones, or those that read its first
    image well."""

    def __init__(self, requested: Sequence[str] = ()) -> None:
        self._requested = tuple(requested)
        self._settled: tuple[str, ...] | None = None
        self._tries = 0
        # The script OSD named in the image candidates() was last given, if any.
        self._osd_named: str | None = None
        self._text_scripts: Counter[str] = Counter()

    def note_text(self, text: str) -> None:
        """Count the scripts of the document's own text, a hint when OSD cannot tell."""
        if self._requested or self._text_scripts.total() >= _TEXT_SAMPLE_LETTERS:
            return
        self._text_scripts.update(
            script for script in map(_letter_script, text[: 4 * _TEXT_SAMPLE_LETTERS]) if script
        )

    def candidates(self, image: Image.Image) -> tuple[tuple[str, ...], ...]:
        """The languages to read ``image`` in, the likeliest first: one choice when they are
        requested or settled."""
        if self._requested:
            return (self._requested,)
        if self._settled is not None:
            return (self._settled,)
        if self._tries >= _MAX_TRIES:
            return (self._hinted(),)
        self._tries += 1
        self._osd_named = detect_script(image)
        return self._ordered(self._osd_named)

    def candidates_enlarged(
        self, image: Image.Image, candidates: tuple[tuple[str, ...], ...]
    ) -> tuple[tuple[str, ...], ...]:
        """``candidates`` for ``image``, an enlargement of the image they were given for: OSD
        often names no script in small text and may in its enlargement."""
        if len(candidates) == 1 or self._osd_named is not None:
            return candidates
        script = detect_script(image)
        return candidates if script is None else self._ordered(script)

    def _hinted(self) -> tuple[str, ...]:
        common = self._text_scripts.most_common(1)
        return languages_for_script(common[0][0] if common else None)

    def _ordered(self, script: str | None) -> tuple[tuple[str, ...], ...]:
        """Those of OSD's ``script``, of the document's text, then of the other scripts."""
        installed = set(installed_languages())
        common = self._text_scripts.most_common(1)
        scripts = [script, common[0][0] if common else None, *SCRIPT_LANGUAGES]
        found = [
            tuple(code for code in SCRIPT_LANGUAGES.get(name or "", ()) if code in installed)
            for name in scripts
        ]
        ordered: list[tuple[str, ...]] = []
        for languages in found:
            # Languages another candidate reads already add nothing ("eng" after "rus+eng").
            if languages and not any(set(languages) <= set(other) for other in ordered):
                ordered.append(languages)
        return tuple(ordered[:_MAX_CANDIDATES]) or (self._hinted(),)

    def settle(self, languages: tuple[str, ...]) -> None:
        """``languages`` read an image of the document well: its later images use them."""
        if not self._requested:
            self._settled = languages


def _letter_script(char: str) -> str | None:
    if char.isascii():
        return "Latin" if char.isalpha() else None
    if "\u0400" <= char <= "\u04ff":
        return "Cyrillic"
    if "\u3040" <= char <= "\u30ff":
        return "Japanese"
    return "Han" if is_unspaced(char) else None
