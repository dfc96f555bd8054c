"""document:process — one knowledge through docreader → chunking → embedding → multimodal →
postprocess, for one attempt (spec: «Основной конвейер обработки»).

Failure semantics: a stage error on a non-final queue attempt fails its span, records the
failed try as a ``retry.{n}`` step, keeps what the round wrote and re-raises so the queue
retries — the next try goes on from the last indexed batch of the same parse
(``resume.py``); on the final attempt the round's products are removed and the knowledge
is marked failed with the reason. A knowledge that is gone, superseded by a newer attempt,
cancelled or being deleted ends the task quietly: the round checks for that at its
checkpoints (``RoundCheckpoint``), removes what it wrote and closes its open spans as
cancelled, which is what watchers see as the moment the work stopped. A try told to stop
while its round stays current (its time limit passed) leaves the round to the try that
follows. A worker shutting down stops the round at the same checkpoints (or, at the end of
its grace, wherever it is): what it wrote stays for the next try to resume from, its open
spans close as INTERRUPTED_BY_SHUTDOWN, and TaskInterrupted tells the queue to hand the
task back, at the front, without using up an attempt.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from storage.queue.base import AttemptInfo, NotInTaskError, TaskInterrupted
from workers.context import WorkerContext
from workers.extensions import DATA_TABLE_EXTENSIONS
from workers.lifecycle.enqueue import enqueue_data_table_summary_if_needed
from workers.net.retry_notices import observe_retries
from workers.payloads import DocumentProcessPayload
from workers.pipeline import stages
from workers.pipeline.effective_config import resolve
from workers.pipeline.round.checkpoint import RoundCheckpoint, round_is_current
from workers.pipeline.round.cleanup import (
    INTERRUPTED,
    INTERRUPTED_MESSAGE,
    close_round_spans,
    remove_round_products,
    stop_reason,
)
from workers.pipeline.round.errors import StageError, Superseded
from workers.pipeline.round.resume import PlannedChunk
from workers.pipeline.round.spans import SpanTracker
from workers.pipeline.round.state import KnowledgeState
from workers.pipeline.round.time_limit import TimeBudget

log = logging.getLogger(__name__)

# The error code of a try stopped while its round goes on in a later try.
TRY_STOPPED = "TRY_STOPPED"


def process_document(ctx: WorkerContext, payload: DocumentProcessPayload) -> None:
    started_at = time.monotonic()
    # Reads of the tenant/knowledge raise on transient DB errors, so the queue retries.
    knowledge = ctx.knowledges.get(payload.knowledge_id, None)
    if knowledge is None:
        log.info("knowledge %s is gone; nothing to do", payload.knowledge_id)
        return
    state = KnowledgeState(ctx, knowledge.id, payload.attempt)
    if knowledge.attempt != payload.attempt or not state.start():
        log.info("knowledge %s attempt %s superseded", knowledge.id, payload.attempt)
        return
    kb = ctx.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if kb is None:
        state.fail("knowledge base not found")
        return
    config = resolve(kb.config or {}, knowledge.process_overrides)
    queue_try = _queue_try(ctx)
    tracker = SpanTracker(
        ctx.spans,
        ctx.publisher,
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        attempt=payload.attempt,
        queue_try=queue_try.attempt_number,
    )
    checkpoint = RoundCheckpoint(ctx, knowledge.id, payload.attempt)
    budget = TimeBudget(queue_try.timeout_s, started_at)
    model_key = kb.embedding_model_key
    chunks: list[PlannedChunk] = []
    tracker.open(_root_inputs(knowledge, payload, queue_try))
    try:
        with observe_retries(tracker.record_retry):
            markdown = stages.read_document(ctx, tracker, checkpoint, knowledge, config)
            state.ensure_current()
            # A URL download sets its file's name and type only now (a csv behind a link).
            knowledge = ctx.knowledges.get(knowledge.id, None) or knowledge
            plan = stages.chunk_document(ctx, tracker, knowledge, model_key, markdown, config)
            chunks = plan.chunks
            state.ensure_current()
            stages.embed_and_index(
                ctx, tracker, checkpoint, knowledge, model_key, plan, config, budget
            )
        state.enable()
        tracker.skip("multimodal", _multimodal_skip_reason(config.enable_multimodel))
        tracker.skip("postprocess", _postprocess_skip_reason(knowledge))
        if not state.complete():
            raise Superseded(knowledge.id)
        enqueue_data_table_summary_if_needed(ctx, knowledge, payload.attempt)
        tracker.close("done")
    except TaskInterrupted:
        _hand_back(ctx, knowledge.id, payload.attempt)
        raise
    except Superseded as exc:
        if round_is_current(ctx, knowledge.id, payload.attempt):
            # A long call stopped by the shutdown poll (docreader, download) ends as Superseded.
            if checkpoint.shutdown_requested():
                _hand_back(ctx, knowledge.id, payload.attempt)
                raise TaskInterrupted(f"knowledge {knowledge.id}: worker shutting down") from exc
            _leave_to_next_try(tracker, queue_try)
            return
        _stop_quietly(ctx, knowledge.id, payload.attempt, model_key, chunks)
    except Exception as exc:
        # A write that failed because the round was taken over meanwhile (its row deleted
        # under it, say) is a stop, not a failure to retry.
        if not round_is_current(ctx, knowledge.id, payload.attempt):
            log.info("knowledge %s attempt %s taken over: %s", knowledge.id, payload.attempt, exc)
            _stop_quietly(ctx, knowledge.id, payload.attempt, model_key, chunks)
            return
        if not isinstance(exc, StageError):
            stage = tracker.running_stage() or "docreader"
            log.exception("unexpected error in %s for knowledge %s", stage, knowledge.id)
            exc = StageError(stage, f"{type(exc).__name__}: {exc}")
        _handle_failure(ctx, state, tracker, knowledge, model_key, chunks, exc)


def _postprocess_skip_reason(knowledge: Any) -> str:
    # A table's summary runs later as its own task, recorded as a step under this stage.
    if (knowledge.file_type or "").lower() in DATA_TABLE_EXTENSIONS:
        return "the table summary runs as its own task (step postprocess.datatable)"
    return "no enrichment is configured for this knowledge"


def _stop_quietly(
    ctx: WorkerContext,
    knowledge_id: str,
    attempt: int,
    model_key: str,
    chunks: list[PlannedChunk],
) -> None:
    """The round was taken over: no retry, no failure, and nothing half-written left."""
    remove_round_products(
        ctx, knowledge_id, attempt, model_key, known_chunk_ids=[c.id for c in chunks]
    )
    reason = stop_reason(ctx, knowledge_id, attempt)
    if reason is not None:
        close_round_spans(ctx, knowledge_id, attempt, *reason)
    log.info("knowledge %s attempt %s stopped: %s", knowledge_id, attempt, reason)


def _hand_back(ctx: WorkerContext, knowledge_id: str, attempt: int) -> None:
    """The worker shuts down: the round says why it stopped and keeps what it indexed, for
    the worker that takes the task next to resume from; the row stays processing at this
    attempt."""
    close_round_spans(ctx, knowledge_id, attempt, INTERRUPTED, INTERRUPTED_MESSAGE)
    log.warning("knowledge %s attempt %s: %s", knowledge_id, attempt, INTERRUPTED_MESSAGE)


def _leave_to_next_try(tracker: SpanTracker, queue_try: AttemptInfo) -> None:
    """This try was told to stop but the round is still current (the queue abandoned it
    after its time limit, or its worker is shutting down): what it wrote and the round's
    spans are the next try's to carry on; only the stop itself is recorded."""
    stage = tracker.running_stage() or "docreader"
    tracker.record_failed_try(
        stage,
        TRY_STOPPED,
        "this try was stopped before it finished (its time limit passed or its worker is "
        "shutting down); the next try goes on from the last indexed batch",
        queue_try.max_attempts,
    )
    log.info("knowledge %s attempt %s: try %s stopped; the round goes on",
             tracker.knowledge_id, tracker.attempt, queue_try.attempt_number)


def _handle_failure(
    ctx: WorkerContext,
    state: KnowledgeState,
    tracker: SpanTracker,
    knowledge: Any,
    model_key: str,
    chunks: list[PlannedChunk],
    exc: StageError,
) -> None:
    message = f"{exc.stage}: {exc}"
    attempt = ctx.queue.attempt_info()
    if not attempt.is_last_attempt and not exc.permanent:
        # What this try wrote stays: the next one resumes from its last indexed batch.
        retry_note = f"queue attempt {attempt.attempt_number}, will retry"
        tracker.fail(exc.stage, exc.code, f"{exc} ({retry_note})")
        tracker.record_failed_try(exc.stage, exc.code, str(exc), attempt.max_attempts)
        raise exc
    # Compensate: no half-written chunks or index rows of this round survive its failure.
    remove_round_products(
        ctx, knowledge.id, tracker.attempt, model_key, known_chunk_ids=[c.id for c in chunks]
    )
    tracker.fail(exc.stage, exc.code, str(exc))
    tracker.cancel_open("UPSTREAM_FAILED", f"{exc.stage} failed")
    tracker.close("failed", code=exc.code, message=message)
    state.fail(message)


def _queue_try(ctx: WorkerContext) -> AttemptInfo:
    try:
        return ctx.queue.attempt_info()
    except NotInTaskError:  # called directly, outside a queue: one try, no time limit
        return AttemptInfo("", None, 1, 1)


def _root_inputs(
    knowledge: Any, payload: DocumentProcessPayload, queue_try: AttemptInfo
) -> dict[str, Any]:
    return {
        "file_name": knowledge.file_name or "",
        "file_type": knowledge.file_type or "",
        "is_url": knowledge.type == "url",
        "type": knowledge.type,
        "attempt": payload.attempt,
        "queue_try": queue_try.attempt_number,
        "max_queue_tries": queue_try.max_attempts,
        "time_limit_s": queue_try.timeout_s,
    }


def _multimodal_skip_reason(enabled: bool) -> str:
    if enabled:
        return "the document has no images"
    return "multimodal processing is not enabled"
