"""document:process — one knowledge through docreader → chunking → embedding → multimodal →
postprocess, for one attempt (spec: «Основной конвейер обработки»).

Failure semantics: a stage error on a non-final queue attempt fails its span, removes the
attempt's partial products and re-raises so the queue retries; on the final attempt the
knowledge is marked failed with the reason. A knowledge that is gone, superseded by a
newer attempt, cancelled or being deleted ends the task quietly: the round checks for that
at its checkpoints (``RoundCheckpoint``), removes what it wrote and closes its open spans as
cancelled, which is what watchers see as the moment the work stopped.
"""

from __future__ import annotations

import logging
from typing import Any

from workers.context import WorkerContext
from workers.extensions import DATA_TABLE_EXTENSIONS
from workers.lifecycle.enqueue import enqueue_data_table_summary_if_needed
from workers.payloads import DocumentProcessPayload
from workers.pipeline import stages
from workers.pipeline.checkpoint import RoundCheckpoint, round_is_current
from workers.pipeline.effective_config import resolve
from workers.pipeline.errors import StageError, Superseded
from workers.pipeline.round_cleanup import close_round_spans, remove_round_products, stop_reason
from workers.pipeline.spans import SpanTracker
from workers.pipeline.state import KnowledgeState

log = logging.getLogger(__name__)


def process_document(ctx: WorkerContext, payload: DocumentProcessPayload) -> None:
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
    tracker = SpanTracker(
        ctx.spans,
        ctx.publisher,
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        attempt=payload.attempt,
    )
    checkpoint = RoundCheckpoint(ctx, knowledge.id, payload.attempt)
    model_key = kb.embedding_model_key
    chunks: list[stages.PlannedChunk] = []
    tracker.open(_root_inputs(knowledge, payload))
    try:
        markdown = stages.read_document(ctx, tracker, checkpoint, knowledge, config)
        state.ensure_current()
        # A URL download sets its file's name and type only now (a csv behind a link).
        knowledge = ctx.knowledges.get(knowledge.id, None) or knowledge
        chunks = stages.chunk_document(ctx, tracker, knowledge, model_key, markdown, config)
        state.ensure_current()
        stages.embed_and_index(ctx, tracker, checkpoint, knowledge, model_key, chunks, config)
        state.enable()
        tracker.skip("multimodal", _multimodal_skip_reason(config.enable_multimodel))
        tracker.skip("postprocess", _postprocess_skip_reason(knowledge))
        if not state.complete():
            raise Superseded(knowledge.id)
        enqueue_data_table_summary_if_needed(ctx, knowledge, payload.attempt)
        tracker.close("done")
    except Superseded:
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
    chunks: list[stages.PlannedChunk],
) -> None:
    """The round was taken over: no retry, no failure, and nothing half-written left."""
    remove_round_products(
        ctx, knowledge_id, attempt, model_key, known_chunk_ids=[c.id for c in chunks]
    )
    reason = stop_reason(ctx, knowledge_id, attempt)
    if reason is not None:
        close_round_spans(ctx, knowledge_id, attempt, *reason)
    log.info("knowledge %s attempt %s stopped: %s", knowledge_id, attempt, reason)


def _handle_failure(
    ctx: WorkerContext,
    state: KnowledgeState,
    tracker: SpanTracker,
    knowledge: Any,
    model_key: str,
    chunks: list[stages.PlannedChunk],
    exc: StageError,
) -> None:
    message = f"{exc.stage}: {exc}"
    # Compensate: no half-written chunks or index rows of this attempt survive its failure.
    remove_round_products(
        ctx, knowledge.id, tracker.attempt, model_key, known_chunk_ids=[c.id for c in chunks]
    )
    attempt = ctx.queue.attempt_info()
    if not attempt.is_last_attempt and not exc.permanent:
        retry_note = f"queue attempt {attempt.attempt_number}, will retry"
        tracker.fail(exc.stage, exc.code, f"{exc} ({retry_note})")
        raise exc
    tracker.fail(exc.stage, exc.code, str(exc))
    tracker.cancel_open("UPSTREAM_FAILED", f"{exc.stage} failed")
    tracker.close("failed", code=exc.code, message=message)
    state.fail(message)


def _root_inputs(knowledge: Any, payload: DocumentProcessPayload) -> dict[str, Any]:
    return {
        "file_name": knowledge.file_name or "",
        "file_type": knowledge.file_type or "",
        "is_url": knowledge.type == "url",
        "type": knowledge.type,
        "attempt": payload.attempt,
    }


def _multimodal_skip_reason(enabled: bool) -> str:
    if enabled:
        return "the document has no images"
    return "multimodal processing is not enabled"
