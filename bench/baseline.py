"""The raw-model baselines: what the pipeline embeds for a document, embedded in-process by
the local model a new knowledge base gets, alone, with no service around it."""

from __future__ import annotations

from collections.abc import Sequence

from core import local_models
from core.effective_config import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE
from core.local_models import LocalModel
from workers.chunker import ChunkerConfig, split_markdown
from workers.chunker.html_tables import normalize_html_tables
from workers.embedding.base import Embedder
from workers.embedding.factory import new_local_embedder
from workers.settings import Settings


def embedding_texts(file_name: str, markdown: str) -> list[str]:
    """What the pipeline embeds for an uploaded Markdown file (pipeline/chunks/indexing.py):
    default chunking, then title (the file name, as the API sets it), heading breadcrumbs
    and content joined by newlines."""
    config = ChunkerConfig(chunk_size=DEFAULT_CHUNK_SIZE, chunk_overlap=DEFAULT_CHUNK_OVERLAP)
    pieces = split_markdown(normalize_html_tables(markdown), config)
    return [
        "\n".join(part for part in (file_name, p.context_header, p.content) if part) for p in pieces
    ]


def batch_size() -> int:
    """The embedding stage's batch size (SLUICE_EMBED_BATCH_SIZE)."""
    return Settings.from_env().models.embed_batch_size


def warm_embedder(
    texts: Sequence[str], threads: int = 0, model: LocalModel = local_models.DEFAULT
) -> Embedder:
    """The model loaded and run once, as a worker's is after its first document."""
    embedder = new_local_embedder(model, batch_size=batch_size(), threads=threads)
    embedder.embed_documents(list(texts[: batch_size()]))
    return embedder


def embed_document(embedder: Embedder, texts: Sequence[str]) -> None:
    """One document's texts in the embedding stage's batches."""
    size = batch_size()
    for offset in range(0, len(texts), size):
        embedder.embed_documents(list(texts[offset : offset + size]))
