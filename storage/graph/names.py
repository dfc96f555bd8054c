"""How entity names are compared: the merge key of an entity within a knowledge base, so
"Acme Corp.", "ACME  Corp" and "acme corp" found in different chunks are one entity."""

from __future__ import annotations

import unicodedata

from storage.db.models.graph import ENTITY_NAME_MAX_CHARS


def normalize_name(name: str) -> str:
    """NFKC (full-width and compatibility forms folded), casefolded, runs of whitespace made
    one space, punctuation around the name (quotes, brackets, a trailing full stop) trimmed;
    cut to the column's width."""
    folded = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    start, end = 0, len(folded)
    while start < end and _is_trimmed(folded[start]):
        start += 1
    while end > start and _is_trimmed(folded[end - 1]):
        end -= 1
    return folded[start:end][:ENTITY_NAME_MAX_CHARS]


def _is_trimmed(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("P")
