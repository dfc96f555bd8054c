"""The query side of our BM25 (keyword_scoring): idf from the rows of the searched scope,
counted by term_counting's sparse searches under the search's own filter."""

from __future__ import annotations

from collections.abc import Sequence

from pymilvus import MilvusClient

from storage.index import collection_schema as cs
from storage.index.client_calls import with_reload
from storage.index.keyword_scoring import query_terms, query_vector
from storage.index.term_counting import count_rows


def keyword_query(client: MilvusClient, name: str, expr: str, query_text: str) -> dict[int, float]:
    """The sparse query vector of `query_text` over the rows matching `expr`; empty when no
    term of the query occurs there (then nothing can match)."""
    terms = query_terms(query_text)
    if not terms:
        return {}

    def matched(vectors: Sequence[dict[int, float]], limit: int) -> list[int]:
        result = with_reload(
            client,
            name,
            lambda: client.search(
                name,
                data=list(vectors),
                anns_field=cs.SPARSE,
                filter=expr,
                limit=limit,
                output_fields=[],
                search_params={"metric_type": cs.SPARSE_METRIC},
            ),
        )
        return [len(hits) for hits in result]

    rows, holding = count_rows(matched, terms)
    return query_vector(rows, holding) if rows else {}
