"""What goes into the index and what comes back out of a search."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class IndexRow:
    """One indexed text: a chunk, or a derived source (`{chunk_id}-{n}`) of one."""

    id: str
    tenant_id: str
    knowledge_base_id: str
    knowledge_id: str
    chunk_id: str
    source_type: str
    is_enabled: bool
    content: str
    # What keyword search matches: the title and heading breadcrumbs with the content, as
    # the dense vector embeds them.
    keyword_text: str
    # Empty in a keyword-only collection (core.index_sides: it has no dense field).
    vector: Sequence[float]
    # False for a knowledge base with keyword indexing off: the row carries no BM25 terms.
    keyword_indexed: bool = True


@dataclass(frozen=True)
class IndexHit:
    """A search result; `score` is higher-is-better (cosine, BM25 or fused, by search kind)."""

    id: str
    chunk_id: str
    knowledge_id: str
    knowledge_base_id: str
    content: str
    score: float
