"""A row's sparse vector: its BM25 weights and the dimensions that count it (term_counting)."""

from __future__ import annotations

from storage.index.keyword_scoring import document_weights, term_id
from storage.index.lexical import iter_terms
from storage.index.term_counting import presence_dimensions

# The sparse value of a row with no keyword side (Milvus needs a nonzero weight on every
# row): one dimension no text term or counting pseudo-term maps to, so no keyword query
# matches it and the rows in scope are not counted with it.
NO_TERMS = {term_id("\x00no-terms"): 1.0}


def sparse_vector(row_id: str, keyword_text: str) -> dict[int, float]:
    terms = list(iter_terms(keyword_text))
    # Disjoint dimensions (a collision is as unlikely as between two terms).
    return {**presence_dimensions(row_id, terms), **document_weights(terms)}
