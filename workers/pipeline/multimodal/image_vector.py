"""A picture's third child, ``image_vector`` (spec: indexImageVector): the picture itself
embedded by the knowledge base's embedding model, when the knowledge base enables image
vectors and its model embeds images, so a text query finds what a picture shows even
where no OCR text or caption says it. Its content is the caption, else the OCR text (what
a result shows); its keyword text is the picture's title and breadcrumbs with that content.

The picture is prepared to the provider's limits first (``image_prep``). A failure here
only logs and is said in the step's outputs: the OCR text and caption are indexed
whatever happens to the vector. Scanned PDF pages never get one: the docreader OCRs them
into the text, and they are not stored as pictures.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from core.effective_config import EffectiveConfig
from core.payloads import ImageMultimodalPayload
from core.statuses import ChunkType
from storage.db.models import Chunk, Knowledge
from storage.db.repositories.chunks import NewChunk
from storage.index.records import IndexRow
from workers.embedding.base import EmbeddingError, image_embedder
from workers.embedding.image_prep import prepare_image
from workers.pipeline.chunks.indexing import (
    EmbedderProvider,
    chunk_row,
    embedding_text,
    knowledge_title,
)

log = logging.getLogger(__name__)

# The index's source type of a picture's own vector (spec: types.ImageSourceType).
IMAGE_SOURCE = "image"


@dataclass(frozen=True)
class ImageVector:
    chunk: NewChunk
    vector: list[float]

    def index_row(self, knowledge: Knowledge, *, keyword: bool) -> IndexRow:
        """``keyword``: whether the row carries BM25 terms (keyword indexing on)."""
        text = embedding_text(knowledge_title(knowledge), self.chunk)
        return chunk_row(
            knowledge, self.chunk, text, self.vector, keyword=keyword, source_type=IMAGE_SOURCE
        )


def embed_picture(
    embedders: EmbedderProvider,
    config: EffectiveConfig,
    knowledge: Knowledge,
    parent: Chunk,
    payload: ImageMultimodalPayload,
    picture: tuple[bytes, str],
    found: MutableMapping[str, Any],
) -> ImageVector | None:
    """The picture's image_vector child, or None (why is put in ``found["vector_error"]``)."""
    embedder = image_embedder(embedders.get(config.embedding), config.embedding.accepts_images)
    if embedder is None:
        found["vector_error"] = "the embedding model does not embed images"
        return None
    data, mime_type = picture
    try:
        [vector] = embedder.embed_images([prepare_image(data, mime_type)])
    except EmbeddingError as exc:
        log.warning(
            "image %s of knowledge %s: no image vector: %s", payload.image_index, knowledge.id, exc
        )
        found["vector_error"] = f"image vector: {exc}"
        return None
    return ImageVector(_vector_chunk(knowledge, parent, payload, found), vector)


def _vector_chunk(
    knowledge: Knowledge, parent: Chunk, payload: ImageMultimodalPayload, found: Mapping[str, Any]
) -> NewChunk:
    return NewChunk(
        id=payload.vector_chunk_id,
        tenant_id=knowledge.tenant_id,
        knowledge_base_id=knowledge.knowledge_base_id,
        knowledge_id=knowledge.id,
        attempt=payload.attempt,
        chunk_index=payload.child_index,
        chunk_type=ChunkType.IMAGE_VECTOR,
        content=str(found.get("caption") or found.get("ocr_text") or "").strip(),
        context_header=parent.context_header,
        parent_chunk_id=parent.id,
        meta={"image_url": payload.image_url, "image_index": payload.image_index},
    )
