"""Embedding chunks and writing them to the index, batch by batch: the one code path for
every chunk that is searched (the text chunks of the embedding stage, the data-table
chunks, later enrichment chunks).

Each batch is indexed as soon as it is embedded, and the caller's ``check`` runs before
and after embedding each batch, so a round told to stop indexes nothing beyond a batch it
may be writing at that moment.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from core.effective_config import EmbeddingModel
from core.index_sides import NO_INDEX_KEY, is_keyword_only
from storage.db.models import Knowledge
from storage.index.milvus_index import IndexRow, MilvusIndex
from workers.embedding.base import Embedder

# The index's source type of a chunk's own row (spec: types.ChunkSourceType).
CHUNK_SOURCE = "chunk"


class IndexableChunk(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def content(self) -> str: ...

    @property
    def context_header(self) -> str: ...


@dataclass(frozen=True)
class IndexOutcome:
    indexed: int
    dimension: int


class EmbedderProvider(Protocol):
    """The embedder of a model configuration (EmbedderCache: one per process and model)."""

    def get(self, model: EmbeddingModel) -> Embedder: ...


@dataclass(frozen=True)
class ChunkIndexer:
    """Embeds chunks with the model a knowledge base names and writes them to its index
    collection, ``batch_size`` chunks at a time. The collection key says which sides the
    rows have (core.index_sides): the keyword-only collection's rows are written without
    the model (it is never loaded or called), and nothing at all for a knowledge base that
    indexes nothing."""

    embedders: EmbedderProvider
    index: MilvusIndex
    batch_size: int

    def index_chunks(
        self,
        knowledge: Knowledge,
        model_key: str,
        model: EmbeddingModel,
        chunks: Sequence[IndexableChunk],
        *,
        check: Callable[[], None],
        on_progress: Callable[[int], None] | None = None,
        start: int = 0,
        keyword: bool = True,
    ) -> IndexOutcome:
        """Embed ``chunks`` from position ``start`` on (those before are indexed already)
        with ``model`` and upsert them into the collection of ``model_key``; ``check``
        raises to stop, ``on_progress`` gets the count indexed so far after each batch's
        index write; ``keyword`` False leaves the rows without BM25 terms (keyword indexing
        off). Raises EmbeddingError when the model fails, IndexStoreError when the index does."""
        if model_key == NO_INDEX_KEY:
            return IndexOutcome(indexed=0, dimension=0)
        embedder = None if is_keyword_only(model_key) else self.embedders.get(model)
        dimension = embedder.dimension if embedder is not None else 0
        self.index.ensure_collection(model_key, dimension)
        title = knowledge_title(knowledge)
        done = start
        for first in range(start, len(chunks), self.batch_size):
            batch = chunks[first : first + self.batch_size]
            check()
            texts = [embedding_text(title, c) for c in batch]
            vectors: Sequence[Sequence[float]] = (
                embedder.embed_documents(texts) if embedder is not None else [()] * len(batch)
            )
            check()
            self.index.upsert(
                model_key,
                [
                    chunk_row(knowledge, c, text, v, keyword=keyword)
                    for c, text, v in zip(batch, texts, vectors, strict=True)
                ],
            )
            done += len(batch)
            if on_progress is not None:
                on_progress(done)
        return IndexOutcome(indexed=done, dimension=dimension)


def chunk_row(
    knowledge: Knowledge,
    chunk: IndexableChunk,
    text: str,
    vector: Sequence[float],
    *,
    enabled: bool = True,
    keyword: bool = True,
    source_type: str = CHUNK_SOURCE,
) -> IndexRow:
    """The index row of a chunk's own text: ``text`` its embedding_text, ``vector`` that
    text embedded (empty for the keyword-only collection), ``keyword`` whether it carries
    BM25 terms."""
    return IndexRow(
        id=chunk.id,
        tenant_id=knowledge.tenant_id,
        knowledge_base_id=knowledge.knowledge_base_id,
        knowledge_id=knowledge.id,
        chunk_id=chunk.id,
        source_type=source_type,
        is_enabled=enabled,
        content=chunk.content,
        keyword_text=text,
        vector=vector,
        keyword_indexed=keyword,
    )


def knowledge_title(knowledge: Knowledge) -> str:
    """The title every embedding text of the knowledge starts with."""
    return knowledge.title or knowledge.file_name or ""


def embedding_text(title: str, chunk: IndexableChunk) -> str:
    """Title + heading breadcrumbs + content, as the spec's EmbeddingContent(): the text both
    embedded and matched by keyword search."""
    return "\n".join(part for part in (title, chunk.context_header, chunk.content) if part)
