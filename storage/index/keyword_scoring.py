"""BM25 as a sparse dot product that we compute, the same on milvus-lite and a Milvus server.

Milvus's own BM25 function keeps its statistics per segment on milvus-lite (the same rare
name scored 0.29 in one document and 5.05 in another) and per collection on a server, where
one collection holds every knowledge base of an embedding model. Here the score of row d for
query q is

    sum over the distinct terms t of q:  idf(t) * tf(t, d) * (K1 + 1) / (tf(t, d) + K1 * norm(d))

with norm(d) = 1 - B + B * terms(d) / AVERAGE_TERMS. The row's side (everything after idf)
depends on the row alone and is stored in its sparse vector; the query's side, idf, is
computed at search time from how many rows of the searched scope (tenant, knowledge bases,
knowledges, enabled) hold the term. So a score depends only on the row and on the scope
searched: not on segments, insertion order or other knowledge bases. How the rows holding a
term are counted is term_counting's part; a row's sparse vector holds both.

AVERAGE_TERMS is a fixed length in place of the collection's average (which would again
depend on what else is stored): about the terms of a default 512-character chunk with its
title and breadcrumbs.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache

from storage.index.lexical import iter_terms

K1 = 1.2
B = 0.75
AVERAGE_TERMS = 100
# Sparse dimensions are 32-bit; Milvus reserves 2**32 - 1.
_DIMENSIONS = 2**32 - 1


@lru_cache(maxsize=200_000)
def term_id(term: str) -> int:
    """The sparse dimension of `term`: a stable hash (Python's `hash` changes per process).
    Two terms sharing a dimension (about one pair per 4 billion) would count as one."""
    digest = hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % _DIMENSIONS


def document_weights(terms: Sequence[str]) -> dict[int, float]:
    """The row side of BM25 for a row of these terms; empty when there are none."""
    counts = Counter(term_id(t) for t in terms)
    norm = K1 * (1 - B + B * len(terms) / AVERAGE_TERMS)
    return {dim: tf * (K1 + 1) / (tf + norm) for dim, tf in counts.items()}


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query, in order of first occurrence."""
    return list(dict.fromkeys(iter_terms(text)))


def idf(rows: int, holding: int) -> float:
    """Lucene's BM25 idf: always positive, larger for rarer terms."""
    return math.log(1 + (rows - holding + 0.5) / (holding + 0.5))


def query_vector(rows: int, frequencies: Mapping[str, int]) -> dict[int, float]:
    """The query side: each term weighted by its idf in the scope; terms no row holds are left
    out (they cannot score)."""
    return {term_id(term): idf(rows, n) for term, n in frequencies.items() if n > 0}
