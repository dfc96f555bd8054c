"""Whitespace collapsing, ``" ".join(text.split())``, without the split where it changes
nothing.

Splitting costs a Python string per word, and most text in a page (a paragraph written on one
line) is already collapsed: that is told by a few scans at memchr speed, or for long text by
numpy in vectorized passes, and many texts are checked at once, joined by ``PART_SEPARATOR``.
"""

from __future__ import annotations

import numpy

from server.docreader.text.cjk import without_inner_line_breaks

# Joins texts for one check of them all: parsed text never holds NUL (the HTML parser drops or
# replaces it), and the spaces make a space at the edge of a text a double space.
PART_SEPARATOR = " \x00 "
# From this length on a numpy pass is cheaper than a dozen string scans.
_VECTOR_MIN = 4096
_CHUNK = 1 << 16
_SPACE = ord(" ")


def collapse_space(text: str) -> str:
    """``" ".join(text.split())``, without splitting long text that is already collapsed; a
    line break between two Chinese or Japanese characters goes without a space."""
    if len(text) > 64 and is_collapsed(text):
        return text
    if not text.isascii() and ("\n" in text or "\r" in text):
        text = without_inner_line_breaks(text)
    return " ".join(text.split())


def all_collapsed(texts: list[str]) -> bool:
    """Whether ``collapse_space`` leaves each of ``texts`` as it is; one check of them all."""
    return bool(texts) and is_collapsed(PART_SEPARATOR.join(texts), parts=len(texts))


def is_collapsed(text: str, *, parts: int = 1) -> bool:
    """Whether ``" ".join(text.split()) == text``; with ``parts`` > 1, ``text`` is that many
    texts joined by ``PART_SEPARATOR`` and the answer is for each of them.

    Told without splitting into words: ASCII, no space at either end and no whitespace but
    single spaces (``str.split`` also splits at ``\t\n\v\f\r`` and ``\x1c``-``\x1f``; the
    separator's spaces make a space at the edge of a part a double space). Long text is
    checked by numpy in a few vectorized passes, short text by string scans."""
    if not text or not text.isascii() or text[0] == " " or text[-1] == " ":
        return False
    if len(text) >= _VECTOR_MIN:
        return _vector_collapsed(text)
    return (
        "\n" not in text
        and "\t" not in text
        and "\r" not in text
        and "\x0b" not in text
        and "\x0c" not in text
        and "\x1c" not in text
        and "\x1d" not in text
        and "\x1e" not in text
        and "\x1f" not in text
        and "  " not in text
    )


def _vector_collapsed(text: str) -> bool:
    """The whitespace check of ``is_collapsed`` for long ASCII text, by numpy, in chunks that
    overlap by one character: small enough to reuse freed memory instead of faulting in fresh
    pages for every temporary array."""
    for start in range(0, len(text), _CHUNK):
        codes = numpy.frombuffer(text[start : start + _CHUNK + 1].encode("ascii"), numpy.uint8)
        spaces = codes == _SPACE
        if (spaces[1:] & spaces[:-1]).any():
            return False
        # Below the space: whitespace and other control characters, or a separator's NUL.
        controls = codes < _SPACE
        if controls.any() and (controls & (codes != 0)).any():
            return False
    return True
