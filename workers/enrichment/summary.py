"""knowledge:summary — a round's document summary (spec: TypeSummaryGeneration), one of its
post-processing subtasks.

The summary model of the knowledge base (``summary.model``) reads the round's enabled text
chunks (``summary_text``); the answer is stored on the knowledge (``GetKnowledge`` returns
it) and indexed as the round's one ``summary`` chunk, so a search for what the document is
about finds it. ``summary_status`` goes pending → processing → completed, or failed when the
model refuses (bad credentials, a removed model, an endpoint the SSRF rules refuse: at once)
or stays unavailable through the queue's last try; its end and the round's subtask counter
decrement are one write (``SummaryRepository``), so the document leaves ``finalizing`` when
its last subtask ends, whichever it is.

The task writes only while the knowledge is at its round (processing or finalizing; a
completed knowledge's summary is written again by the refresh, summary_refresh.py) and
checks again once the summary chunk is indexed: a round reparsed, cancelled
or deleted meanwhile gets nothing, and what was written is removed. Its progress is the step
span ``postprocess.summary`` under the round's postprocess stage.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from core.effective_config import EffectiveConfig, resolve
from core.index_sides import index_sides
from core.payloads import SummaryPayload
from core.statuses import ChunkType
from core.statuses import Stage as StageName
from storage.db.models import Knowledge
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.summaries import SUMMARY_ROUND_STATUSES, SummaryRepository
from workers.enrichment.summary_text import DEFAULT_MAX_LENGTH, write_summary
from workers.models.errors import ModelError
from workers.models.protocols import ChatModel
from workers.models.registry import ModelRegistry
from workers.pipeline.chunks.indexing import ChunkIndexer
from workers.pipeline.document import queue_try_of
from workers.pipeline.parts import IndexingParts
from workers.pipeline.round.checkpoint import RoundCheckpoint, row_is_current
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.parts import CheckpointParts, RoundSpanParts
from workers.pipeline.round.spans import SpanTracker, round_tracker, stage_span_id
from workers.pipeline.round.subtasks import close_completed_round
from workers.pipeline.stages.chunking import chunk_id
from workers.profile_request import request_profile_refresh

log = logging.getLogger(__name__)

STEP_SPAN = "postprocess.summary"
SUMMARY_FAILED = "SUMMARY_FAILED"
NO_SUMMARY_MODEL = "NO_SUMMARY_MODEL"


class SummaryParts(IndexingParts, RoundSpanParts, CheckpointParts, Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def summaries(self) -> SummaryRepository: ...
    @property
    def models(self) -> ModelRegistry: ...


def summarize_knowledge(parts: SummaryParts, payload: SummaryPayload) -> bool:
    """Write the round's summary; True when this try completed it. Raises ModelError for a
    failure the queue should retry (the summary stays processing)."""
    knowledge = parts.knowledges.get(payload.knowledge_id, None)
    if not row_is_current(knowledge, payload.attempt, SUMMARY_ROUND_STATUSES):
        log.info(
            "knowledge %s attempt %s: no summary, not current",
            payload.knowledge_id,
            payload.attempt,
        )
        return False
    kb = parts.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if kb is None or not parts.summaries.begin(knowledge.id, payload.attempt):
        # Gone, or this round's summary already ended (by an earlier try, which counted it).
        return False
    config = resolve(kb.config or {}, knowledge.process_overrides)
    tracker = _tracker(parts, knowledge, payload.attempt)
    tracker.begin_step(
        STEP_SPAN,
        stage=StageName.POSTPROCESS,
        parent_id=stage_span_id(parts.spans, knowledge.id, payload.attempt, StageName.POSTPROCESS),
        inputs={
            "model": config.summary_model.model,
            "queue_try": queue_try_of(parts).attempt_number,
        },
    )
    try:
        return _write(parts, knowledge, payload.attempt, config, kb.embedding_model_key, tracker)
    except Superseded:
        tracker.fail(STEP_SPAN, "SUPERSEDED", "the round was reparsed, cancelled or deleted")
        return False
    except ModelError as exc:
        if exc.retryable and not queue_try_of(parts).is_last_attempt:
            tracker.fail(STEP_SPAN, exc.code, f"{exc} (tried again)")
            raise
        end_failed(parts, knowledge, payload.attempt, exc.code, str(exc), tracker)
        return False


def end_failed(
    parts: SummaryParts,
    knowledge: Knowledge,
    attempt: int,
    code: str,
    message: str,
    tracker: SpanTracker | None = None,
) -> None:
    """The round's summary failed for good (also the dead-letter path): failed, counted
    done, its step failed with why."""
    ended = parts.summaries.fail(knowledge.id, attempt, message)
    (tracker or _tracker(parts, knowledge, attempt)).fail(STEP_SPAN, code, message)
    if ended is not None:
        log.warning("knowledge %s attempt %s: summary failed: %s", knowledge.id, attempt, message)
        request_profile_refresh(parts, knowledge.knowledge_base_id)
        if ended.completed_round:
            close_completed_round(parts, knowledge.id, attempt)


def _write(
    parts: SummaryParts,
    knowledge: Knowledge,
    attempt: int,
    config: EffectiveConfig,
    model_key: str,
    tracker: SpanTracker,
) -> bool:
    model = parts.models.chat(config.summary_model)
    if model is None:
        end_failed(
            parts,
            knowledge,
            attempt,
            NO_SUMMARY_MODEL,
            "the knowledge base names no summary model (summary.model)",
            tracker,
        )
        return False
    texts = [
        c.content
        for c in parts.chunks.list_of_types(knowledge.id, attempt, [ChunkType.TEXT])
        if c.is_enabled
    ]
    summary = model_summary(model, knowledge, config, texts)
    if not summary:
        end_failed(
            parts, knowledge, attempt, SUMMARY_FAILED, "the model answered no summary", tracker
        )
        return False
    checkpoint = RoundCheckpoint(parts, knowledge.id, attempt, statuses=SUMMARY_ROUND_STATUSES)
    row = summary_chunk(knowledge, attempt, summary)
    if not parts.chunks.replace_of_types(
        knowledge.id, attempt, [ChunkType.SUMMARY], [row], statuses=SUMMARY_ROUND_STATUSES
    ):
        raise Superseded(knowledge.id)
    try:
        sides = index_sides(model_key, config)
        if sides.any:
            indexer = ChunkIndexer(parts.embedders, parts.index, 1)
            indexer.index_chunks(
                knowledge,
                model_key,
                config.embedding,
                [row],
                check=checkpoint.check,
                keyword=sides.keyword,
            )
        ended = parts.summaries.complete(knowledge.id, attempt, summary)
        if ended is None:
            raise Superseded(knowledge.id)
    except BaseException:
        _remove(parts, knowledge, attempt, model_key, row.id)
        raise
    tracker.end(STEP_SPAN, {"summary_chars": len(summary), "source_chunks": len(texts)})
    request_profile_refresh(parts, knowledge.knowledge_base_id)
    if ended.completed_round:
        close_completed_round(parts, knowledge.id, attempt)
    return True


def model_summary(
    model: ChatModel, knowledge: Knowledge, config: EffectiveConfig, texts: Sequence[str]
) -> str:
    """The summary model's summary of ``texts`` (the enabled text chunks, in order) with the
    knowledge's title and metadata, fitted to the configured length (ModelError when the
    model fails; empty when it answered nothing usable). The refresh writes it the same way."""
    max_length = config.summary_max_length or DEFAULT_MAX_LENGTH
    title = knowledge.title or knowledge.file_name or ""
    return write_summary(model, title, texts, max_length, dict(knowledge.meta or {}))


def summary_chunk(knowledge: Knowledge, attempt: int, summary: str) -> NewChunk:
    """The round's one ``summary`` chunk (its id fixed by the round, so a refresh rewrites
    the same row)."""
    return NewChunk(
        id=chunk_id(knowledge.id, attempt, ChunkType.SUMMARY, 0),
        tenant_id=knowledge.tenant_id,
        knowledge_base_id=knowledge.knowledge_base_id,
        knowledge_id=knowledge.id,
        attempt=attempt,
        chunk_index=0,
        chunk_type=ChunkType.SUMMARY,
        content=summary,
    )


def _remove(
    parts: SummaryParts, knowledge: Knowledge, attempt: int, model_key: str, row_id: str
) -> None:
    if model_key:
        parts.index.delete_by_chunk_ids(model_key, [row_id])
    parts.chunks.delete_of_types(knowledge.id, attempt, [ChunkType.SUMMARY])


def _tracker(parts: SummaryParts, knowledge: Knowledge, attempt: int) -> SpanTracker:
    return round_tracker(parts, knowledge, attempt)
