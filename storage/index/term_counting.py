"""How many of the searched rows hold each query term, in a bounded number of index hits.

Counting by searching for a term's rows costs one hit per row, and milvus-lite materialises
every hit in Python, so a common term in a large knowledge base would cost thousands. Instead
the counts are taken at sampling levels: level 0 is every row, level l the rows whose id
hashes into one in RATE**l. Each row stores, beside its BM25 weights (the level-0 term
dimensions), a presence dimension per term at each deeper level it is sampled at, and a
pseudo-term every row holds (its count is the number of rows). A count is taken from the
first level where it stays under DEPTH hits, scaled by RATE**l. So counts up to DEPTH
are exact, larger ones estimated from at least DEPTH / RATE sampled rows (within a factor
of about 2 at worst, which moves an idf by up to ln 2 = 0.69; only terms in more than DEPTH
rows, whose idf is low anyway, are estimated), and a query needs at most DEPTH hits per term
and level; the rows store about 11 % more sparse dimensions for it. Sampling by row id keeps
every count a function of the rows in scope alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence

from storage.index.keyword_scoring import term_id

DEPTH = 50
RATE = 10
LEVELS = 4  # counts up to DEPTH * RATE**(LEVELS - 1) = 50,000 rows, larger ones capped there
# A pseudo-term every row holds; no text term contains a NUL.
ROW = "\x00row"

Search = Callable[[Sequence[dict[int, float]], int], Sequence[int]]
"""Runs one sparse query per vector over the searched scope with the given limit and returns
how many rows each matched."""


def dimension(level: int, term: str) -> int:
    """Level 0 is the term's BM25 dimension itself; deeper levels have their own."""
    return term_id(term) if level == 0 else term_id(f"{level}\x00{term}")


def _sampled_levels(row_id: str) -> int:
    """The deepest level `row_id` is sampled at (levels are nested: a row in level 2 is in 1)."""
    digest = hashlib.blake2b(row_id.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "big")
    level = 0
    while level < LEVELS - 1 and value % RATE ** (level + 1) == 0:
        level += 1
    return level


def presence_dimensions(row_id: str, terms: Iterable[str]) -> dict[int, float]:
    """The counting dimensions of a row (its BM25 weights are its level-0 term dimensions)."""
    distinct = set(terms)
    present = {dimension(0, ROW): 1.0}
    for level in range(1, _sampled_levels(row_id) + 1):
        present[dimension(level, ROW)] = 1.0
        present.update((dimension(level, term), 1.0) for term in distinct)
    return present


def count_rows(search: Search, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
    """The number of rows in scope, and of those holding each of `terms`: every level of
    every term in one request (a search call costs more than the hits of a deeper level)."""
    names = list(dict.fromkeys([ROW, *terms]))
    found = search(
        [{dimension(level, term): 1.0} for term in names for level in range(LEVELS)], DEPTH
    )
    counts = {}
    for position, term in enumerate(names):
        hits = found[position * LEVELS : (position + 1) * LEVELS]
        level = next((lv for lv, n in enumerate(hits) if n < DEPTH), LEVELS - 1)
        # At least DEPTH rows when the level above was full, whatever the sample says.
        floor = DEPTH * RATE ** (level - 1) if level else 0
        counts[term] = max(hits[level] * RATE**level, floor)
    rows = counts.pop(ROW)
    return rows, {term: min(n, rows) for term, n in counts.items()}
