"""knowledge:question — search questions for one batch of a round's text chunks (spec:
TypeQuestionGeneration, a batch per 20 chunks), one of its post-processing subtasks.

The question model of the effective configuration (``question_generation.model``) is asked
for ``question_count`` questions per chunk (``question_text``); the chunks' calls are queued
together on the model's call pool (``ModelRegistry.call_pool``), whose concurrency limit,
shared by every batch, decides how many are in flight. Each question is a ``question``
chunk whose parent is its source chunk, embedded and indexed like text: a search phrased
like the question finds it, and Search returns the source chunk for it.

A chunk the model refuses for good (a rejected request, an answer with no questions) is
skipped and named in the step's outputs; a refusal of the model itself (credentials, a
model not served, an endpoint the SSRF rules refuse, no model at all) ends the batch at
once, failed. A model unavailable (429, 5xx, timeout) fails the try and the queue tries
again; the last try skips the chunks it could not do and ends the batch with the rest.

The batch writes only while its knowledge is finalizing at its round: a round reparsed,
cancelled or deleted meanwhile gets nothing, and what was written is removed. Its end is
recorded with the round's counter decrement in one transaction (``SubtaskEndRepository``),
so a retried batch, or a dead letter after a try ended it, counts once. Its progress is
the step span ``postprocess.question.{batch}`` under the round's postprocess stage.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.effective_config import MAX_QUESTION_COUNT, EffectiveConfig
from core.index_sides import index_sides
from core.payloads import QuestionBatchPayload
from core.statuses import ChunkType, ParseStatus
from core.statuses import Stage as StageName
from storage.db.models import Chunk, Knowledge
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.subtask_ends import SubtaskEndRepository
from workers.enrichment.question_text import ask_questions
from workers.models.errors import (
    ENDPOINT_REFUSED,
    MISCONFIGURED,
    NOT_FOUND,
    UNAUTHORIZED,
    ModelError,
)
from workers.models.protocols import ChatModel
from workers.models.registry import ModelRegistry
from workers.pipeline.chunks.indexing import ChunkIndexer, knowledge_title
from workers.pipeline.document import queue_try_of
from workers.pipeline.parts import IndexingParts
from workers.pipeline.round.checkpoint import RoundCheckpoint
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.parts import CheckpointParts, RoundSpanParts
from workers.pipeline.round.spans import SpanTracker, round_tracker, stage_span_id
from workers.pipeline.round.subtasks import close_completed_round, end_subtask_failed, open_subtask
from workers.pipeline.stages.chunking import chunk_id

log = logging.getLogger(__name__)

KIND = "question"
NO_QUESTION_MODEL = "NO_QUESTION_MODEL"
QUESTIONS_FAILED = "QUESTIONS_FAILED"
# The batches run while their round is finalizing: its last subtask's end completes it.
QUESTION_ROUND_STATUSES = (ParseStatus.FINALIZING,)
# How often a batch waiting for its calls looks whether its round must stop.
STOP_POLL_S = 0.25
# Refusals of the model itself: every other call of the batch would be refused alike.
_MODEL_REFUSALS = frozenset({ENDPOINT_REFUSED, UNAUTHORIZED, NOT_FOUND, MISCONFIGURED})


def step_name(batch_index: int) -> str:
    return f"{StageName.POSTPROCESS}.{KIND}.{batch_index}"


class QuestionParts(IndexingParts, RoundSpanParts, CheckpointParts, Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def subtask_ends(self) -> SubtaskEndRepository: ...
    @property
    def models(self) -> ModelRegistry: ...


@dataclass
class _Asked:
    """What a batch's calls gave: questions by source chunk id, and the chunks skipped."""

    questions: dict[str, list[str]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def generate_questions(parts: QuestionParts, payload: QuestionBatchPayload) -> bool:
    """Write the batch's questions; True when this try ended it. Raises ModelError for a
    failure the queue should retry (nothing is written)."""
    opened = open_subtask(
        parts,
        payload.knowledge_id,
        payload.attempt,
        (KIND, payload.batch_index),
        QUESTION_ROUND_STATUSES,
    )
    if opened is None:
        return False
    knowledge, kb, config = opened.knowledge, opened.kb, opened.config
    queue_try = queue_try_of(parts)
    tracker = _tracker(parts, knowledge, payload.attempt)
    step = step_name(payload.batch_index)
    tracker.begin_step(
        step,
        stage=StageName.POSTPROCESS,
        parent_id=stage_span_id(parts.spans, knowledge.id, payload.attempt, StageName.POSTPROCESS),
        inputs={
            "batch": payload.batch_index,
            "chunks": len(payload.chunk_ids),
            "model": config.question_model.model,
            "question_count": config.question_count,
            "queue_try": queue_try.attempt_number,
        },
    )
    try:
        model = parts.models.chat(config.question_model)
        if model is None:
            end_batch_failed(
                parts,
                knowledge,
                payload,
                NO_QUESTION_MODEL,
                "the configuration names no question model (question_generation.model)",
                tracker,
            )
            return False
        return _write(
            parts,
            knowledge,
            payload,
            config,
            model,
            tracker,
            model_key=kb.embedding_model_key,
            last_try=queue_try.is_last_attempt,
        )
    except Superseded:
        tracker.fail(step, "SUPERSEDED", "the round was reparsed, cancelled or deleted")
        return False
    except ModelError as exc:
        if exc.retryable and not queue_try.is_last_attempt:
            tracker.fail(step, exc.code, f"{exc} (tried again)")
            raise
        end_batch_failed(parts, knowledge, payload, exc.code, str(exc), tracker)
        return False


def end_batch_failed(
    parts: QuestionParts,
    knowledge: Knowledge,
    payload: QuestionBatchPayload,
    code: str,
    message: str,
    tracker: SpanTracker | None = None,
) -> None:
    """The batch failed for good (also the dead-letter path): what a try wrote of it goes,
    it counts as ended, its step fails with why. A batch an earlier try ended keeps what
    that try wrote."""
    if parts.subtask_ends.ended(knowledge.id, payload.attempt, KIND, payload.batch_index):
        return
    kb = parts.knowledge_bases.get(None, knowledge.knowledge_base_id)
    _remove(parts, knowledge, payload, kb.embedding_model_key if kb is not None else "")
    end_subtask_failed(
        parts,
        knowledge.id,
        payload.attempt,
        (KIND, payload.batch_index),
        step_name(payload.batch_index),
        (code, message),
        tracker or _tracker(parts, knowledge, payload.attempt),
    )


def _write(
    parts: QuestionParts,
    knowledge: Knowledge,
    payload: QuestionBatchPayload,
    config: EffectiveConfig,
    model: ChatModel,
    tracker: SpanTracker,
    *,
    model_key: str,
    last_try: bool,
) -> bool:
    checkpoint = RoundCheckpoint(
        parts, knowledge.id, payload.attempt, statuses=QUESTION_ROUND_STATUSES
    )
    sources = _sources(parts.chunks, knowledge, payload)
    asked = _ask_all(
        model,
        parts.models.call_pool(config.question_model),
        knowledge_title(knowledge),
        sources,
        config.question_count,
        checkpoint,
        last_try=last_try,
    )
    checkpoint.check(fresh=True)
    rows = _question_rows(knowledge, payload, sources, asked.questions)
    # An earlier try that crashed may have left rows (and their index rows) behind.
    _remove(parts, knowledge, payload, model_key)
    if not parts.chunks.replace_children(
        knowledge.id,
        payload.attempt,
        ChunkType.QUESTION,
        payload.chunk_ids,
        rows,
        statuses=QUESTION_ROUND_STATUSES,
    ):
        raise Superseded(knowledge.id)
    try:
        sides = index_sides(model_key, config)
        if rows and sides.any:
            indexer = ChunkIndexer(
                parts.embedders, parts.index, parts.settings.models.embed_batch_size
            )
            indexer.index_chunks(
                knowledge,
                model_key,
                config.embedding,
                rows,
                check=checkpoint.check,
                keyword=sides.keyword,
            )
        ended = parts.subtask_ends.end_once(
            knowledge.id, payload.attempt, KIND, payload.batch_index
        )
        if ended is None:
            raise Superseded(knowledge.id)
    except BaseException:
        _remove(parts, knowledge, payload, model_key, [row.id for row in rows])
        raise
    tracker.end(step_name(payload.batch_index), _outputs(sources, rows, asked))
    if ended.completed_round:
        close_completed_round(parts, knowledge.id, payload.attempt)
    return ended.counted


def _sources(
    chunks: ChunkRepository, knowledge: Knowledge, payload: QuestionBatchPayload
) -> list[Chunk]:
    """The batch's chunks that are still the round's enabled text chunks."""
    return [
        c
        for c in chunks.get_many(payload.chunk_ids, tenant_id=None)
        if c.knowledge_id == knowledge.id
        and c.attempt == payload.attempt
        and c.chunk_type == ChunkType.TEXT
        and c.is_enabled
    ]


def _ask_all(
    model: ChatModel,
    pool: Executor,
    title: str,
    sources: Sequence[Chunk],
    count: int,
    checkpoint: RoundCheckpoint,
    *,
    last_try: bool,
) -> _Asked:
    """Every source's questions, the calls queued together on the model's call pool (its
    limit decides how many are in flight; the calls not sent yet are dropped when the batch
    stops); the round's stop points are polled while they run (from this thread: the
    queue's signals are the task's)."""
    asked = _Asked()
    futures: dict[Future[list[str]], Chunk] = {
        pool.submit(ask_questions, model, title, s.context_header, s.content, count): s
        for s in sources
    }
    pending: Iterable[Future[list[str]]] = set(futures)
    try:
        while pending:
            done, pending = wait(pending, timeout=STOP_POLL_S, return_when=FIRST_COMPLETED)
            for future in done:
                _take(asked, futures[future], future, last_try)
            checkpoint.check()
    finally:
        for future in pending:
            future.cancel()
    return asked


def _take(asked: _Asked, source: Chunk, future: Future[list[str]], last_try: bool) -> None:
    try:
        questions = future.result()
    except ModelError as exc:
        if exc.code in _MODEL_REFUSALS or (exc.retryable and not last_try):
            raise
        asked.skipped[source.id] = f"{exc.code}: {exc}"
        return
    if questions:
        asked.questions[source.id] = questions
    else:
        asked.skipped[source.id] = "the model answered no questions"


def _question_rows(
    knowledge: Knowledge,
    payload: QuestionBatchPayload,
    sources: Sequence[Chunk],
    questions: Mapping[str, Sequence[str]],
) -> list[NewChunk]:
    """One row per question, numbered after its source chunk (``index * MAX + n``), so a
    question's id is the same on every try."""
    rows: list[NewChunk] = []
    for source in sources:
        for n, question in enumerate(questions.get(source.id, ())):
            index = source.chunk_index * MAX_QUESTION_COUNT + n
            rows.append(
                NewChunk(
                    id=chunk_id(knowledge.id, payload.attempt, ChunkType.QUESTION, index),
                    tenant_id=knowledge.tenant_id,
                    knowledge_base_id=knowledge.knowledge_base_id,
                    knowledge_id=knowledge.id,
                    attempt=payload.attempt,
                    chunk_index=index,
                    chunk_type=ChunkType.QUESTION,
                    content=question,
                    context_header=source.context_header,
                    parent_chunk_id=source.id,
                    meta={"batch": payload.batch_index},
                )
            )
    return rows


def _outputs(sources: Sequence[Chunk], rows: Sequence[NewChunk], asked: _Asked) -> dict[str, Any]:
    outputs: dict[str, Any] = {"chunks": len(sources), "questions": len(rows)}
    if asked.skipped:
        outputs["skipped"] = [
            {"chunk_id": chunk, "error": error} for chunk, error in asked.skipped.items()
        ]
    return outputs


def _remove(
    parts: QuestionParts,
    knowledge: Knowledge,
    payload: QuestionBatchPayload,
    model_key: str,
    written: Sequence[str] = (),
) -> None:
    """The batch's question rows and their index rows, whoever wrote them; ``written``: the
    rows this try wrote (a reparse's cleanup may have removed them, not their index rows
    written after it)."""
    ids = parts.chunks.delete_children(
        knowledge.id, payload.attempt, ChunkType.QUESTION, payload.chunk_ids
    )
    ids = sorted({*ids, *written})
    if ids and model_key:
        parts.index.delete_by_chunk_ids(model_key, ids)


def _tracker(parts: QuestionParts, knowledge: Knowledge, attempt: int) -> SpanTracker:
    return round_tracker(parts, knowledge, attempt, queue_try=queue_try_of(parts).attempt_number)
