"""knowledge:summary_refresh — a completed knowledge's summary written again (spec:
«Обновление сводки», knowledge_summary_refresh.go): queued by an edit of its inputs
(UpdateChunk, SetChunkEnabled of a text chunk, UpdateKnowledgeMetadata) or by
RegenerateSummary (storage.db.repositories.summary_stale).

The task begins (summary → processing, the refresh sequence bumped so a later edit queues
one more), snapshots its inputs (each text chunk's content_revision and enabled flag, the
metadata version), asks the summary model as the first summary does
(``summary.model_summary``), embeds the new text, and writes the summary, its ``summary``
chunk and that chunk's index row in one transaction that finds the snapshot unchanged. An
input that changed meanwhile drops the result (the summary stays processing: the newer
refresh the edit queued finishes the job); a database error raises, so the queue tries
again rather than the refresh being dropped as if it were stale. A model that refuses
(or an embedding endpoint refused) fails it at once, one unavailable through the last
try too: failed, with why in ``summary_error``, and the summary written last stays.

Only a completed round is refreshed: edits are refused while a round runs, and a round's
own summary task writes its summary; a reparse ends any refresh (its round writes anew).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Protocol

from core.effective_config import EmbeddingModel, resolve
from core.index_sides import IndexSides, index_sides
from core.payloads import SummaryRefreshPayload
from storage.db.models import Knowledge
from storage.db.repositories.chunks import NewChunk
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.summary_refresh import (
    RefreshSnapshot,
    RefreshWrite,
    SummaryRefreshRepository,
)
from storage.index.records import IndexRow
from workers.embedding.base import EmbeddingEndpointRefused
from workers.enrichment.summary import (
    NO_SUMMARY_MODEL,
    SUMMARY_FAILED,
    model_summary,
    summary_chunk,
)
from workers.models.errors import ModelError
from workers.models.registry import ModelRegistry
from workers.pipeline.chunks.indexing import chunk_row, embedding_text, knowledge_title
from workers.pipeline.document import queue_try_of
from workers.pipeline.parts import IndexingParts
from workers.pipeline.round.parts import QueueParts
from workers.profile_request import request_profile_refresh

log = logging.getLogger(__name__)

NO_TEXT = "NO_ENABLED_TEXT"
EMBEDDING_REFUSED = "EMBEDDING_REFUSED"


class SummaryRefreshParts(IndexingParts, QueueParts, Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def summary_refreshes(self) -> SummaryRefreshRepository: ...
    @property
    def models(self) -> ModelRegistry: ...


class _Failed(Exception):
    """The refresh fails for good: ``code`` and why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def refresh_summary(parts: SummaryRefreshParts, payload: SummaryRefreshPayload) -> RefreshWrite:
    """Write the summary again; what became of it (WRITTEN, CHANGED: dropped for a newer
    refresh, GONE: nothing to do). Raises for the queue to try again: ModelError when the
    model is unavailable (not on the last try), a database or index error."""
    knowledge = parts.summary_refreshes.begin(payload.knowledge_id, payload.sequence)
    if knowledge is None:
        log.info("knowledge %s: no summary refresh %s due", payload.knowledge_id, payload.sequence)
        return RefreshWrite.GONE
    try:
        return _refresh(parts, knowledge)
    except _Failed as failed:
        parts.summary_refreshes.fail(knowledge.id, payload.sequence, f"{failed.code}: {failed}")
        log.warning("knowledge %s: summary refresh failed: %s", knowledge.id, failed)
        return RefreshWrite.GONE
    except ModelError as exc:
        if exc.retryable and not queue_try_of(parts).is_last_attempt:
            raise
        parts.summary_refreshes.fail(knowledge.id, payload.sequence, f"{exc.code}: {exc}")
        log.warning("knowledge %s: summary refresh failed: %s", knowledge.id, exc)
        return RefreshWrite.GONE


def refresh_failed(parts: SummaryRefreshParts, payload: SummaryRefreshPayload, error: str) -> None:
    """The dead-letter path: the last try crashed or timed out."""
    parts.summary_refreshes.fail(
        payload.knowledge_id, payload.sequence, f"{SUMMARY_FAILED}: {error}"
    )


def _refresh(parts: SummaryRefreshParts, knowledge: Knowledge) -> RefreshWrite:
    kb = parts.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if kb is None:
        return RefreshWrite.GONE
    config = resolve(kb.config or {}, knowledge.process_overrides)
    model = parts.models.chat(config.summary_model)
    if model is None:
        raise _Failed(NO_SUMMARY_MODEL, "the knowledge base names no summary model (summary.model)")
    snapshot = parts.summary_refreshes.snapshot(knowledge.id)
    if snapshot is None:
        return RefreshWrite.GONE
    if not snapshot.texts:
        raise _Failed(NO_TEXT, "the knowledge has no enabled text chunk to summarise")
    summary = model_summary(model, snapshot.knowledge, config, snapshot.texts)
    if not summary:
        raise _Failed(SUMMARY_FAILED, "the model answered no summary")
    current = snapshot.summary_chunk
    row = summary_chunk(snapshot.knowledge, snapshot.knowledge.attempt, summary)
    if current is not None:  # a summary chunk the user disabled stays disabled
        row = replace(row, is_enabled=current.is_enabled)
    model_key = kb.embedding_model_key
    sides = index_sides(model_key, config)
    new, old = (
        _index_rows(parts, snapshot, config.embedding, row, sides) if sides.any else (None, None)
    )
    index_written = False

    def index_write() -> None:
        nonlocal index_written
        if new is not None:
            parts.index.ensure_collection(model_key, len(new.vector))
            parts.index.upsert(model_key, [new])
            index_written = True

    try:
        outcome = parts.summary_refreshes.write(snapshot, summary, row, index_write)
    except BaseException:
        if index_written:  # the commit failed after the index write: put it back
            if old is not None:
                parts.index.upsert(model_key, [old])
            else:
                parts.index.delete_by_chunk_ids(model_key, [row.id])
        raise
    if outcome is RefreshWrite.CHANGED:
        log.info("knowledge %s: summary inputs changed meanwhile; result dropped", knowledge.id)
    elif outcome is RefreshWrite.WRITTEN:  # the knowledge base's profile reads the summaries
        request_profile_refresh(parts, knowledge.knowledge_base_id)
    return outcome


def _index_rows(
    parts: SummaryRefreshParts,
    snapshot: RefreshSnapshot,
    model: EmbeddingModel,
    row: NewChunk,
    sides: IndexSides,
) -> tuple[IndexRow, IndexRow | None]:
    """The summary chunk's index row with the new text and as it is now (to put it back),
    embedded in one call before anything is locked (not at all without dense vectors)."""
    knowledge, current = snapshot.knowledge, snapshot.summary_chunk
    title = knowledge_title(knowledge)
    texts = [embedding_text(title, row)]
    if current is not None:
        texts.append(embedding_text(title, current))
    try:
        vectors = (
            parts.embedders.get(model).embed_documents(texts)
            if sides.dense
            else [[] for _ in texts]
        )
    except EmbeddingEndpointRefused as exc:
        raise _Failed(EMBEDDING_REFUSED, str(exc)) from exc
    new = chunk_row(
        knowledge, row, texts[0], vectors[0], enabled=row.is_enabled, keyword=sides.keyword
    )
    if current is None:
        return new, None
    return new, chunk_row(
        knowledge, current, texts[1], vectors[1], enabled=current.is_enabled, keyword=sides.keyword
    )
