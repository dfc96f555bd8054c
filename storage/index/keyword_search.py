"""The query side of our BM25 (keyword_scoring): idf from the rows of the searched scope.

Per query term, one sparse search for the rows holding it counts them (its row weight is
positive exactly where the term occurs), all terms in one request; with the scope's row count
that gives each term's idf. The count is exact up to DF_DEPTH rows, Milvus's largest search
limit: a term in more of the searched rows counts as in DF_DEPTH, which only overrates the
idf of terms that common, never changes which rows match.
"""

from __future__ import annotations

from pymilvus import MilvusClient

from storage.index import collection_schema as cs
from storage.index.client_calls import with_reload
from storage.index.keyword_scoring import query_terms, query_vector

DF_DEPTH = 16_384


def keyword_query(client: MilvusClient, name: str, expr: str, query_text: str) -> dict[int, float]:
    """The sparse query vector of `query_text` over the rows matching `expr`; empty when no
    term of the query occurs there (then nothing can match)."""
    dimensions = query_terms(query_text)
    if not dimensions:
        return {}
    counted = with_reload(
        client, name, lambda: client.query(name, filter=expr, output_fields=["count(*)"])
    )
    rows = int(counted[0]["count(*)"])
    if rows == 0:
        return {}
    holders = with_reload(
        client,
        name,
        lambda: client.search(
            name,
            data=[{dimension: 1.0} for dimension in dimensions],
            anns_field=cs.SPARSE,
            filter=expr,
            limit=min(rows, DF_DEPTH),
            output_fields=[],
            search_params={"metric_type": cs.SPARSE_METRIC},
        ),
    )
    return query_vector(rows, {d: len(hits) for d, hits in zip(dimensions, holders, strict=True)})
