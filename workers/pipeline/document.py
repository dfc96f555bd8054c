"""document:process — one knowledge through docreader → chunking → embedding → multimodal →
postprocess, for one attempt (spec: «Основной конвейер обработки»): the stages of
``document_stages`` given to a ``DocumentRound``.

Failure semantics: a stage error on a non-final queue attempt fails its span, records the
failed try as a ``retry.{n}`` step, keeps what the round wrote and re-raises so the queue
retries — the next try goes on from the last indexed batch of the same parse
(``round.resume``); on the final attempt the round's products are removed and the knowledge
is marked failed with the reason. A stage that fails once its try's time limit is spent
failed because of the limit, whatever the call it was in reported. A knowledge that is gone,
superseded by a newer attempt, cancelled or being deleted ends the task quietly: the round
checks for that at its checkpoints (``RoundCheckpoint``), removes what it wrote and closes
its open spans as cancelled, which is what watchers see as the moment the work stopped. A try
told to stop while its round stays current (its time limit passed) leaves the round to the
try that follows. A worker shutting down stops the round at the same checkpoints (or, at the
end of its grace, wherever it is): what it wrote stays for the next try to resume from, its
open spans close as INTERRUPTED_BY_SHUTDOWN, and TaskInterrupted tells the queue to hand the
task back, at the front, without using up an attempt.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from core.effective_config import resolve
from core.payloads import DocumentProcessPayload
from core.statuses import KnowledgeType, SpanStatus
from core.statuses import Stage as StageName
from storage.db.repositories.image_chunks import ImageChunkRepository
from storage.queue.base import AttemptInfo, NotInTaskError, TaskInterrupted
from workers.net.retry_notices import observe_retries
from workers.pipeline.chunks.indexing import ChunkIndexer
from workers.pipeline.data_table import enqueue_data_table_summary_if_needed
from workers.pipeline.parts import DocumentParts, DocumentRoundParts, DocumentStageParts
from workers.pipeline.round.checkpoint import RoundCheckpoint
from workers.pipeline.round.cleanup import (
    INTERRUPTED,
    INTERRUPTED_MESSAGE,
    RoundProducts,
    close_round_spans,
)
from workers.pipeline.round.errors import StageError, Superseded, TimeLimitExceeded
from workers.pipeline.round.parts import QueueParts
from workers.pipeline.round.runner import RoundRunner, Stage
from workers.pipeline.round.spans import SpanTracker
from workers.pipeline.round.state import KnowledgeState
from workers.pipeline.round.time_limit import TimeBudget
from workers.pipeline.stages.chunking import ChunkingStage
from workers.pipeline.stages.docreader import DocReaderStage
from workers.pipeline.stages.embedding import EmbeddingStage
from workers.pipeline.stages.multimodal import MultimodalStage
from workers.pipeline.stages.postprocess import PostprocessStage
from workers.pipeline.stages.work import DocumentWork

log = logging.getLogger(__name__)

# The error code of a try stopped while its round goes on in a later try.
TRY_STOPPED = "TRY_STOPPED"
# Searchable as soon as indexing is done, before enrichment (spec).
SEARCHABLE_AFTER = StageName.EMBEDDING


def document_stages(
    parts: DocumentStageParts, checkpoint: RoundCheckpoint, budget: TimeBudget
) -> Sequence[Stage[DocumentWork]]:
    """The document pipeline: its stages in order, each given what it uses."""
    products = RoundProducts(parts.index_checkpoints, parts.chunks, parts.index, parts.graph)
    indexer = ChunkIndexer(parts.embedders, parts.index, parts.settings.models.embed_batch_size)
    return (
        DocReaderStage(parts, checkpoint),
        ChunkingStage(parts.knowledges, parts.chunks, parts.index_checkpoints, products),
        EmbeddingStage(indexer, parts.index_checkpoints, checkpoint, budget),
        MultimodalStage(ImageChunkRepository(parts.db), parts.queue, parts.models),
        PostprocessStage(parts),
    )


def process_document(parts: DocumentParts, payload: DocumentProcessPayload) -> None:
    # Reads of the tenant/knowledge raise on transient DB errors, so the queue retries.
    knowledge = parts.knowledges.get(payload.knowledge_id, None)
    if knowledge is None:
        log.info("knowledge %s is gone; nothing to do", payload.knowledge_id)
        return
    state = KnowledgeState(parts, knowledge.id, payload.attempt)
    if knowledge.attempt != payload.attempt or not state.start():
        log.info("knowledge %s attempt %s superseded", knowledge.id, payload.attempt)
        return
    kb = parts.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if kb is None:
        state.fail("knowledge base not found")
        return
    config = resolve(kb.config or {}, knowledge.process_overrides)
    queue_try = queue_try_of(parts)
    checkpoint = RoundCheckpoint(parts, knowledge.id, payload.attempt)
    budget = TimeBudget(queue_try.timeout_s, queue_try.started_at)
    work = DocumentWork(knowledge, payload.attempt, config, kb.embedding_model_key)
    stages = document_stages(parts, checkpoint, budget)
    DocumentRound(parts, work, state, queue_try, checkpoint, budget, stages).execute(work)


class DocumentRound(RoundRunner[DocumentWork, DocumentRoundParts]):
    """What the ends of a document's round mean: done (completed, searchable), failed
    (retried, or final), stopped (left to the next try, handed back, or taken over)."""

    def __init__(
        self,
        parts: DocumentRoundParts,
        work: DocumentWork,
        state: KnowledgeState,
        queue_try: AttemptInfo,
        checkpoint: RoundCheckpoint,
        budget: TimeBudget,
        stages: Sequence[Stage[DocumentWork]],
    ) -> None:
        knowledge = work.knowledge
        self.tracker = SpanTracker(
            parts.spans,
            parts.publisher,
            tenant_id=knowledge.tenant_id,
            knowledge_id=knowledge.id,
            attempt=work.attempt,
            queue_try=queue_try.attempt_number,
        )
        super().__init__(parts, knowledge.id, work.attempt, self.tracker, stages)
        self.state = state
        self.products = RoundProducts(
            parts.index_checkpoints, parts.chunks, parts.index, parts.graph
        )
        self.queue_try = queue_try
        self.checkpoint = checkpoint
        self.budget = budget

    def open(self, work: DocumentWork) -> None:
        self.tracker.open(_root_inputs(work, self.queue_try))

    @contextmanager
    def observing(self) -> Iterator[None]:
        with observe_retries(self.tracker.record_retry):
            yield

    def between_stages(self, done: Stage[DocumentWork], work: DocumentWork) -> None:
        if done.name == SEARCHABLE_AFTER:
            self.state.enable()
        else:
            self.state.ensure_current()

    def finish(self, work: DocumentWork) -> None:
        if not self.state.complete():
            # The reconciliation of unqueued subtasks may have completed it already.
            if not self.state.is_completed():
                raise Superseded(self.knowledge_id)
            self.state.published_completed()
        enqueue_data_table_summary_if_needed(self.parts, work.knowledge, self.attempt)
        self.tracker.close(SpanStatus.DONE)

    def remove_written(self, work: DocumentWork) -> None:
        self.products.remove(
            self.knowledge_id, self.attempt, work.model_key, known_chunk_ids=work.planned_chunk_ids
        )

    def interrupted(self) -> None:
        """The worker shuts down: the round says why it stopped and keeps what it indexed,
        for the worker that takes the task next to resume from; the row stays processing at
        this attempt."""
        close_round_spans(
            self.parts, self.knowledge_id, self.attempt, INTERRUPTED, INTERRUPTED_MESSAGE
        )
        log.warning(
            "knowledge %s attempt %s: %s", self.knowledge_id, self.attempt, INTERRUPTED_MESSAGE
        )

    def stopped(self, exc: Superseded, work: DocumentWork) -> None:
        if not self.is_current():
            self.taken_over(work)
            return
        # A long call stopped by the shutdown poll (docreader, download) ends as Superseded.
        if self.checkpoint.shutdown_requested():
            self.interrupted()
            raise TaskInterrupted(f"knowledge {self.knowledge_id}: worker shutting down") from exc
        self._leave_to_next_try()

    def _leave_to_next_try(self) -> None:
        """This try was told to stop but the round is still current (the queue abandoned it
        after its time limit, or its worker is shutting down): what it wrote and the round's
        spans are the next try's to carry on; only the stop itself is recorded."""
        stage = self.tracker.running_stage() or StageName.DOCREADER
        self.tracker.record_failed_try(
            stage,
            TRY_STOPPED,
            "this try was stopped before it finished (its time limit passed or its worker is "
            "shutting down); the next try goes on from the last indexed batch",
            self.queue_try.max_attempts,
        )
        log.info(
            "knowledge %s attempt %s: try %s stopped; the round goes on",
            self.knowledge_id,
            self.attempt,
            self.queue_try.attempt_number,
        )

    def failed(self, exc: Exception, work: DocumentWork) -> None:
        stage = self.tracker.running_stage() or StageName.DOCREADER
        if self.budget.spent():
            log.warning(
                "knowledge %s: %s failed past the try's time limit: %s: %s",
                self.knowledge_id,
                stage,
                type(exc).__name__,
                exc,
            )
            exc = TimeLimitExceeded(stage, self.budget.limit_s)
        elif not isinstance(exc, StageError):
            log.exception("unexpected error in %s for knowledge %s", stage, self.knowledge_id)
            exc = StageError(stage, f"{type(exc).__name__}: {exc}")
        self._end_failed_try(exc, work)

    def _end_failed_try(self, exc: StageError, work: DocumentWork) -> None:
        """Retried while the queue has tries left and the error may pass; else final."""
        tracker = self.tracker
        message = f"{exc.stage}: {exc}"
        attempt = self.parts.queue.attempt_info()
        if not attempt.is_last_attempt and not exc.permanent:
            # What this try wrote stays: the next one resumes from its last indexed batch.
            retry_note = f"queue attempt {attempt.attempt_number}, will retry"
            tracker.fail(exc.stage, exc.code, f"{exc} ({retry_note})")
            tracker.record_failed_try(exc.stage, exc.code, str(exc), attempt.max_attempts)
            raise exc
        # Compensate: no half-written chunks or index rows of this round survive its failure.
        self.remove_written(work)
        tracker.fail(exc.stage, exc.code, str(exc))
        tracker.cancel_open("UPSTREAM_FAILED", f"{exc.stage} failed")
        tracker.close(SpanStatus.FAILED, code=exc.code, message=message)
        self.state.fail(message)


def queue_try_of(parts: QueueParts) -> AttemptInfo:
    try:
        return parts.queue.attempt_info()
    except NotInTaskError:  # called directly, outside a queue: one try, no time limit
        return AttemptInfo("", None, 1, 1)


def _root_inputs(work: DocumentWork, queue_try: AttemptInfo) -> dict[str, Any]:
    knowledge = work.knowledge
    return {
        "file_name": knowledge.file_name or "",
        "file_type": knowledge.file_type or "",
        "is_url": knowledge.type == KnowledgeType.URL,
        "type": knowledge.type,
        "attempt": work.attempt,
        "queue_try": queue_try.attempt_number,
        "max_queue_tries": queue_try.max_attempts,
        "time_limit_s": queue_try.timeout_s,
    }
