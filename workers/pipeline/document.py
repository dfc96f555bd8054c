"""document:process — one knowledge through docreader → chunking → embedding → multimodal →
postprocess, for one attempt (spec: «Основной конвейер обработки»).

Failure semantics: a stage error on a non-final queue attempt fails its span, removes the
attempt's partial products and re-raises so the queue retries; on the final attempt the
knowledge is marked failed with the reason. A knowledge that is gone, superseded by a
newer attempt, cancelled or being deleted ends the task quietly.
"""

from __future__ import annotations

import logging
from typing import Any

from workers.context import WorkerContext
from workers.payloads import DocumentProcessPayload
from workers.pipeline import stages
from workers.pipeline.effective_config import resolve
from workers.pipeline.errors import StageError, Superseded
from workers.pipeline.spans import SpanTracker
from workers.pipeline.state import KnowledgeState

log = logging.getLogger(__name__)


def process_document(ctx: WorkerContext, payload: DocumentProcessPayload) -> None:
    # Reads of the tenant/knowledge raise on transient DB errors, so the queue retries.
    knowledge = ctx.knowledges.get(payload.knowledge_id)
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
    tracker.open(_root_inputs(knowledge, payload))
    try:
        markdown = stages.read_document(ctx, tracker, knowledge, config)
        state.ensure_current()
        chunks = stages.chunk_document(ctx, tracker, knowledge, markdown, config)
        state.ensure_current()
        stages.embed_and_index(ctx, tracker, knowledge, kb.embedding_model_key, chunks, config)
        state.enable()
        tracker.skip("multimodal", _multimodal_skip_reason(config.enable_multimodel))
        tracker.skip("postprocess", "no enrichment is configured for this knowledge")
        if state.complete():
            tracker.close("done")
    except Superseded:
        tracker.cancel_open("SUPERSEDED", "a newer round, a cancel or a delete took over")
        tracker.close("cancelled", code="SUPERSEDED")
    except StageError as exc:
        _handle_failure(ctx, state, tracker, knowledge, kb.embedding_model_key, exc)
    except Exception as exc:
        stage = tracker.running_stage() or "docreader"
        log.exception("unexpected error in %s for knowledge %s", stage, knowledge.id)
        error = StageError(stage, f"{type(exc).__name__}: {exc}")
        _handle_failure(ctx, state, tracker, knowledge, kb.embedding_model_key, error)


def _handle_failure(
    ctx: WorkerContext,
    state: KnowledgeState,
    tracker: SpanTracker,
    knowledge: Any,
    model_key: str,
    exc: StageError,
) -> None:
    message = f"{exc.stage}: {exc}"
    # Compensate: no half-written chunks or index rows survive a failed attempt.
    stages.remove_products(ctx, knowledge.id, model_key)
    attempt = ctx.queue.attempt_info()
    if not attempt.is_last_attempt:
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
