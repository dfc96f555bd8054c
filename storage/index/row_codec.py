"""Conversion between our records and the rows and hits pymilvus speaks."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from storage.index import collection_schema as cs
from storage.index.records import IndexHit, IndexRow
from storage.index.row_vectors import NO_TERMS, sparse_vector

_T = TypeVar("_T")

HIT_FIELDS = [cs.CHUNK_ID, cs.KNOWLEDGE_ID, cs.KNOWLEDGE_BASE_ID, cs.CONTENT]


def row_data(row: IndexRow) -> dict[str, Any]:
    """The row as its collection stores it: without a dense value in a keyword-only one."""
    content = _cut_utf8(row.content, cs.TEXT_MAX_BYTES)
    data = {
        cs.ID: row.id,
        cs.TENANT_ID: row.tenant_id,
        cs.KNOWLEDGE_BASE_ID: row.knowledge_base_id,
        cs.KNOWLEDGE_ID: row.knowledge_id,
        cs.CHUNK_ID: row.chunk_id,
        cs.SOURCE_TYPE: row.source_type,
        cs.IS_ENABLED: row.is_enabled,
        cs.CONTENT: content,
        cs.SPARSE: sparse_vector(row.id, row.keyword_text) if row.keyword_indexed else NO_TERMS,
    }
    if row.vector:
        data[cs.DENSE] = floats(row.vector)
    return data


def _cut_utf8(text: str, max_bytes: int) -> str:
    """`text` cut to at most `max_bytes` of UTF-8 without splitting a character.

    The index keeps a copy for display; the database holds the full chunk."""
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text
    return encoded[:max_bytes].decode("utf-8", errors="ignore")


def floats(vector: Sequence[float]) -> list[float]:
    return [float(x) for x in vector]


def hit_of(hit: Mapping[str, Any], score: float) -> IndexHit:
    entity: Mapping[str, Any] = hit["entity"]
    return IndexHit(
        id=str(hit["id"]),
        chunk_id=str(entity[cs.CHUNK_ID]),
        knowledge_id=str(entity[cs.KNOWLEDGE_ID]),
        knowledge_base_id=str(entity[cs.KNOWLEDGE_BASE_ID]),
        content=str(entity[cs.CONTENT]),
        score=score,
    )


def batches(items: Sequence[_T], size: int) -> Iterator[Sequence[_T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
