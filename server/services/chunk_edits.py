"""Edits of a processed knowledge's chunks: a text chunk's content (re-embedded and
re-indexed) and any chunk's enabled flag, each changing the chunk's row and its index row
together or not at all.

The new text is embedded before anything is locked or written: a model that is down is
UNAVAILABLE and nothing changed. The row is then changed inside one transaction holding the
knowledge (storage.db.repositories.edits) and the index is written inside it too, so an
index failure rolls the row back; if the commit itself fails after the index write, the
index row is put back as it was. The API process embeds the text, as it embeds Search
queries (in full mode too): one chunk is one model call.

Edits cascade to a text chunk's children (parent_chunk_id): enabling or disabling it does
the same to its images' OCR text and captions and its generated questions, in the DB and
the index; a new content removes its questions (they asked about the old text). An edit of
what the summary is written from (a text chunk's content or enabled flag) queues a summary
refresh once committed (server.services.summary_refresh), and a new content replaces the
chunk's knowledge graph rows once committed (server.services.chunk_graph).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.chunking_limits import MAX_CHUNK_SIZE
from core.effective_config import resolve
from core.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound
from core.index_sides import index_sides
from core.statuses import TERMINAL, ChunkType, EnableStatus, ParseStatus
from server.services.chunk_graph import refresh_graph_after_edit
from server.services.identity import Identity
from server.services.image_links import with_image_urls
from server.services.knowledge_reads import ReadChunk
from server.services.model_endpoints import REFUSED_REASON
from server.services.parts import ChunkEditParts
from server.services.summary_refresh import queue_refresh_after_edit
from storage.db.models import Chunk, Knowledge, utcnow
from storage.db.repositories.edits import LockedChunk
from storage.index.records import IndexRow
from workers.embedding.base import EmbeddingEndpointRefused
from workers.pipeline.chunks.indexing import chunk_row, embedding_text, knowledge_title

CHUNK = "sluice.v1.Chunk"
# PreconditionFailure types.
KNOWLEDGE_BUSY = "KNOWLEDGE_PROCESSING"
NOT_A_TEXT_CHUNK = "CHUNK_NOT_TEXT"
# Aborted reason: the chunk or its knowledge changed between embedding and writing.
CHUNK_CHANGED = "CHUNK_CHANGED"
MAX_CONTENT_CHARS = MAX_CHUNK_SIZE
# The chunks that stand for their parent text chunk in Search (parent_chunk_id).
CHILD_TYPES = (
    ChunkType.IMAGE_OCR,
    ChunkType.IMAGE_CAPTION,
    ChunkType.IMAGE_VECTOR,
    ChunkType.QUESTION,
)


@dataclass(frozen=True)
class _Target:
    """What an edit works on, as read before anything is locked."""

    chunk: Chunk
    knowledge: Knowledge
    model_key: str
    kb_config: dict[str, Any]


@dataclass(frozen=True)
class _Embedded:
    """The chunk's index row after the edit, and as it is now (to put it back)."""

    new: IndexRow
    old: IndexRow


class ChunkEditService:
    def __init__(self, ctx: ChunkEditParts) -> None:
        self._ctx = ctx

    def update_content(self, identity: Identity, chunk_id: str, content: str) -> ReadChunk:
        """The text chunk with ``content``, re-embedded and re-indexed; its content_revision
        grows by one (an unchanged text changes nothing)."""
        target = self._target(identity, chunk_id)
        if target.chunk.chunk_type != ChunkType.TEXT:
            raise FailedPrecondition(
                NOT_A_TEXT_CHUNK,
                target.chunk.id,
                f"only text chunks can be edited; chunk {target.chunk.id} is "
                f"{target.chunk.chunk_type}",
            )
        _check_content(content)
        if content == target.chunk.content:
            return self._read(target.chunk, target.knowledge)
        rows = self._embedded(target, content)

        def apply(locked: LockedChunk) -> int | None:
            locked.chunk.content = content
            locked.chunk.content_revision += 1
            locked.chunk.updated_at = utcnow()
            self._ctx.index.upsert(target.model_key, [rows.new])
            # Questions generated from the old text no longer ask about this one.
            questions = locked.children([ChunkType.QUESTION])
            locked.delete(questions)
            self._ctx.index.delete_by_chunk_ids(target.model_key, [q.id for q in questions])
            return locked.summary_refresh()

        def undo() -> None:
            # The questions' index rows stay removed: they were of the old text anyway.
            self._ctx.index.upsert(target.model_key, [rows.old])

        chunk, knowledge, refresh = self._edit(identity, target, apply, undo=undo)
        queue_refresh_after_edit(self._ctx.queue, knowledge, refresh)
        refresh_graph_after_edit(
            self._ctx.graph, self._ctx.queue, knowledge, chunk, target.kb_config
        )
        return self._read(chunk, knowledge)

    def set_enabled(self, identity: Identity, chunk_id: str, enabled: bool) -> ReadChunk:
        """The chunk found by Search (``enabled``) or not, its index rows following."""
        target = self._target(identity, chunk_id)
        if target.chunk.is_enabled == enabled:
            return self._read(target.chunk, target.knowledge)
        chunk_ids = [target.chunk.id]

        def apply(locked: LockedChunk) -> int | None:
            locked.chunk.is_enabled = enabled
            locked.chunk.updated_at = utcnow()
            is_text = locked.chunk.chunk_type == ChunkType.TEXT
            if is_text:
                # A text chunk's children (its images' OCR text and captions, its questions)
                # stand for it in Search: they follow it.
                for child in locked.children(CHILD_TYPES):
                    if child.is_enabled != enabled:
                        child.is_enabled = enabled
                        child.updated_at = utcnow()
                        chunk_ids.append(child.id)
            self._ctx.index.set_enabled(target.model_key, chunk_ids, enabled)
            # Only the text chunks are what the summary is written from.
            return locked.summary_refresh() if is_text else None

        return self._edited(
            identity,
            target,
            apply,
            undo=lambda: self._ctx.index.set_enabled(target.model_key, chunk_ids, not enabled),
        )

    def _target(self, identity: Identity, chunk_id: str) -> _Target:
        """The caller's chunk and its knowledge; NOT_FOUND when either is not theirs or is
        gone, FAILED_PRECONDITION while the knowledge is being processed."""
        if not chunk_id:
            raise InvalidArgument.field("chunk_id", "is required")
        found = self._ctx.chunks.get_many([chunk_id], tenant_id=identity.scope)
        knowledge = (
            self._ctx.knowledges.get(found[0].knowledge_id, identity.scope) if found else None
        )
        kb = (
            self._ctx.knowledge_bases.get(identity.scope, knowledge.knowledge_base_id)
            if knowledge is not None
            else None
        )
        if knowledge is None or kb is None or knowledge.parse_status == ParseStatus.DELETING:
            raise NotFound(CHUNK, chunk_id)
        _check_editable(knowledge)
        return _Target(found[0], knowledge, kb.embedding_model_key, kb.config or {})

    def _embedded(self, target: _Target, content: str) -> _Embedded:
        """The index rows of the chunk with ``content`` and as it is, embedded in one call
        (the embedding stage's text and row)."""
        config = resolve(target.kb_config, target.knowledge.process_overrides)
        sides = index_sides(target.model_key, config)
        chunk, knowledge = target.chunk, target.knowledge
        edited = _EditedText(chunk.id, content, chunk.context_header)
        title = knowledge_title(knowledge)
        texts = [embedding_text(title, edited), embedding_text(title, chunk)]
        try:
            # A knowledge base without dense vectors never calls its model.
            new_vector, old_vector = (
                self._ctx.embedders.get(config.embedding).embed_documents(texts)
                if sides.dense
                else ([], [])
            )
        except EmbeddingEndpointRefused as exc:
            raise FailedPrecondition(
                REFUSED_REASON,
                "config.embedding.base_url",
                f"knowledge base {knowledge.knowledge_base_id}: {exc}",
            ) from exc
        enabled = chunk.is_enabled
        return _Embedded(
            chunk_row(
                knowledge, edited, texts[0], new_vector, enabled=enabled, keyword=sides.keyword
            ),
            chunk_row(
                knowledge, chunk, texts[1], old_vector, enabled=enabled, keyword=sides.keyword
            ),
        )

    def _edited(
        self,
        identity: Identity,
        target: _Target,
        apply: Callable[[LockedChunk], int | None],
        *,
        undo: Callable[[], None],
    ) -> ReadChunk:
        """The chunk after ``_edit``, the summary refresh the edit called for queued."""
        chunk, knowledge, refresh = self._edit(identity, target, apply, undo=undo)
        queue_refresh_after_edit(self._ctx.queue, knowledge, refresh)
        return self._read(chunk, knowledge)

    def _edit(
        self,
        identity: Identity,
        target: _Target,
        apply: Callable[[LockedChunk], int | None],
        *,
        undo: Callable[[], None],
    ) -> tuple[Chunk, Knowledge, int | None]:
        """Run ``apply`` (the row changes and the index write; it answers the summary
        refresh to queue) on the locked chunk, which must be as ``target`` read it; ``undo``
        puts the index back when the commit fails after the index was written."""
        index_written = False
        try:
            with self._ctx.edits.chunk_for_edit(target.chunk.id, identity.scope) as locked:
                if locked is None:
                    raise NotFound(CHUNK, target.chunk.id)
                _check_editable(locked.knowledge)
                if not _unchanged(target, locked):
                    raise Aborted(
                        CHUNK_CHANGED,
                        target.chunk.id,
                        f"chunk {target.chunk.id} or its knowledge changed meanwhile; retry",
                    )
                refresh = apply(locked)
                index_written = True
        except Exception:
            if index_written:
                undo()
            raise
        return locked.chunk, locked.knowledge, refresh

    def _read(self, chunk: Chunk, knowledge: Knowledge) -> ReadChunk:
        [content] = with_image_urls(
            self._ctx.catalog, self._ctx.files, [(chunk.tenant_id, chunk.content)]
        )
        return ReadChunk(chunk, content, knowledge.enable_status == EnableStatus.ENABLED)


@dataclass(frozen=True)
class _EditedText:
    """The chunk with its new content, as the indexer reads a chunk."""

    id: str
    content: str
    context_header: str


def _check_editable(knowledge: Knowledge) -> None:
    if knowledge.parse_status not in TERMINAL:
        raise FailedPrecondition(
            KNOWLEDGE_BUSY,
            knowledge.id,
            f"knowledge {knowledge.id} is {knowledge.parse_status}: its chunks can be edited "
            "once its processing has ended",
        )


def _check_content(content: str) -> None:
    if not content.strip():
        raise InvalidArgument.field("content", "must not be blank")
    if len(content) > MAX_CONTENT_CHARS:
        raise InvalidArgument.field(
            "content", f"is {len(content)} characters, over {MAX_CONTENT_CHARS}"
        )


def _unchanged(target: _Target, locked: LockedChunk) -> bool:
    """The locked rows still hold what the embedded texts were made from."""
    before, now = target.chunk, locked.chunk
    return (
        now.content == before.content
        and now.context_header == before.context_header
        and now.is_enabled == before.is_enabled
        and knowledge_title(locked.knowledge) == knowledge_title(target.knowledge)
        and locked.knowledge.attempt == target.knowledge.attempt
    )
