"""The normalised text of an FAQ entry and its content hash (spec: CalculateFAQContentHash):
what a single create's duplicate check, an import's dedup and an FAQ clone's diff compare.

Normalising removes URLs, lower-cases, turns traditional Chinese into simplified (OpenCC,
the maintained converter), full-width forms into half-width ones, and collapses every run of
whitespace (non-breaking and zero-width spaces included) into one space."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from functools import cache, lru_cache

import opencc

_URL = re.compile(r"(?:https?|ftp)://\S+|www\.\S+", re.IGNORECASE)
# Zero-width characters that separate nothing a reader sees.
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
_WHITESPACE = re.compile(r"\s+")
# U+FF01..U+FF5E are the full-width forms of ASCII ! .. ~; U+3000 is the ideographic space.
_FULL_TO_HALF = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
# Between the parts of the hashed text: a character no normalised text contains.
_SEPARATOR = "\x1f"


@cache
def _traditional_to_simplified() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


# An import normalises each text several times (its checks, the dedup, the hash, the stored
# questions): the OpenCC conversion dominated its planning.
@lru_cache(maxsize=16384)
def normalize_faq_text(text: str) -> str:
    text = _URL.sub(" ", text)
    text = text.translate(_FULL_TO_HALF).lower()
    text = _traditional_to_simplified().convert(text)
    text = _INVISIBLE.sub("", text)
    return _WHITESPACE.sub(" ", text).strip()


def faq_content_hash(
    standard_question: str,
    similar_questions: Iterable[str],
    negative_questions: Iterable[str],
    answers: Iterable[str],
) -> str:
    """SHA-256 (hex) of the normalised texts: similar and negative questions as sets (their
    order and repeats do not matter), answers in order (the strategy "all" gives them so)."""
    parts = [
        normalize_faq_text(standard_question),
        *sorted({normalize_faq_text(q) for q in similar_questions} - {""}),
        "",
        *sorted({normalize_faq_text(q) for q in negative_questions} - {""}),
        "",
        *(normalize_faq_text(a) for a in answers),
    ]
    return hashlib.sha256(_SEPARATOR.join(parts).encode("utf-8")).hexdigest()
