"""A source knowledge's chunks written again as the clone's, with their index rows.

Only the types the spec clones: text, parent_text, summary, image_caption and image_ocr,
and the generated questions (``question``: indexed rows that find their text chunk, so a
clone without them would search differently). Table profiles, image vectors and FAQ entries
are not cloned. Each chunk gets a new id; its parent, previous and next links are mapped to
the copies (a link to a chunk not cloned is dropped); image links in the content, image
info and metadata point at the copied files. In batches of ``BATCH``: the rows of a batch,
then its index rows copied with their stored vectors (storage.index.row_copy): nothing is
embedded again."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from core.statuses import ChunkType
from storage.db.models import Chunk, Knowledge, KnowledgeBase, new_id
from storage.db.repositories.chunks import NewChunk
from storage.index.milvus_index import RowOwner
from workers.clone.file_copy import FileCopier
from workers.clone.parts import CloneParts

BATCH = 100
CLONED_TYPES = (
    ChunkType.TEXT,
    ChunkType.PARENT_TEXT,
    ChunkType.SUMMARY,
    ChunkType.IMAGE_CAPTION,
    ChunkType.IMAGE_OCR,
    ChunkType.QUESTION,
)


def copy_chunks(
    ctx: CloneParts,
    source: Knowledge,
    target: Knowledge,
    target_kb: KnowledgeBase,
    files: FileCopier,
    before_batch: Callable[[], None],
) -> int:
    """Returns how many chunks were copied; ``before_batch`` may stop the copy (raise)."""
    chunks = ctx.chunks.list_of_types(source.id, source.attempt, CLONED_TYPES)
    ids = {chunk.id: new_id() for chunk in chunks}
    owner = RowOwner(target.tenant_id, target.knowledge_base_id, {source.id: target.id})
    for start in range(0, len(chunks), BATCH):
        batch = chunks[start : start + BATCH]
        before_batch()
        ctx.chunks.insert_many([_copy(chunk, target, ids, files) for chunk in batch])
        batch_ids = {chunk.id: ids[chunk.id] for chunk in batch}
        ctx.index.copy_rows(target_kb.embedding_model_key, batch_ids, owner)
    return len(chunks)


def _copy(chunk: Chunk, target: Knowledge, ids: Mapping[str, str], files: FileCopier) -> NewChunk:
    return NewChunk(
        id=ids[chunk.id],
        tenant_id=target.tenant_id,
        knowledge_base_id=target.knowledge_base_id,
        knowledge_id=target.id,
        attempt=target.attempt,
        chunk_index=chunk.chunk_index,
        chunk_type=chunk.chunk_type,
        content=files.rewrite(chunk.content),
        context_header=chunk.context_header,
        start_at=chunk.start_at,
        end_at=chunk.end_at,
        parent_chunk_id=_linked(chunk.parent_chunk_id, ids),
        pre_chunk_id=_linked(chunk.pre_chunk_id, ids),
        next_chunk_id=_linked(chunk.next_chunk_id, ids),
        is_enabled=chunk.is_enabled,
        image_info=files.rewrite_json(chunk.image_info),
        meta=files.rewrite_json(chunk.meta) or {},
        content_hash=chunk.content_hash,
    )


def _linked(chunk_id: str | None, ids: Mapping[str, str]) -> str | None:
    return ids.get(chunk_id) if chunk_id else None
