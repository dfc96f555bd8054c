"""Bytes of a text file → str, for txt, md, csv and json inputs.

Order: a byte-order mark decides; then BOM-less UTF-16 (NUL bytes in every other position);
then strict UTF-8; then a legacy single-byte code page. Between the two legacy candidates,
cp1251 wins when most non-ASCII letters sit next to another non-ASCII letter (whole Cyrillic
words), and cp1252/latin-1 otherwise (isolated accented letters in Latin words).
"""

from __future__ import annotations

import codecs
import re

from server.docreader.errors import ParseError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_SAMPLE_BYTES = 64 * 1024
_NON_ASCII_LETTER = re.compile(r"[^\W\d_a-zA-Z]")


def decode_text(content: bytes) -> str:
    for bom, encoding in _BOMS:
        if content.startswith(bom):
            return content.decode(encoding, errors="replace")
    utf16 = _bomless_utf16(content[:_SAMPLE_BYTES])
    if utf16:
        return content.decode(utf16, errors="replace")
    if b"\x00" in content:
        raise ParseError("the file contains NUL bytes: it is binary, not text")
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if _looks_cyrillic(content):
        return content.decode("cp1251", errors="replace")
    try:
        return content.decode("cp1252")
    except UnicodeDecodeError:
        return content.decode("latin-1")


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _bomless_utf16(sample: bytes) -> str | None:
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    even_zeros = sample[0 : pairs * 2 : 2].count(0)
    odd_zeros = sample[1 : pairs * 2 : 2].count(0)
    # ASCII-range text in UTF-16 has a zero in one byte of most code units.
    if odd_zeros > 0.4 * pairs and even_zeros < 0.05 * pairs:
        return "utf-16-le"
    if even_zeros > 0.4 * pairs and odd_zeros < 0.05 * pairs:
        return "utf-16-be"
    return None


def _looks_cyrillic(content: bytes) -> bool:
    text = content[:_SAMPLE_BYTES].decode("cp1251", errors="replace")
    letters = [m.start() for m in _NON_ASCII_LETTER.finditer(text)]
    if not letters:
        return False
    positions = set(letters)
    paired = sum(1 for p in letters if p - 1 in positions or p + 1 in positions)
    return paired > 0.5 * len(letters)
