"""The last attempt died without saying so itself (crash, time limit, killed worker)."""

from __future__ import annotations

from core.payloads import DocumentProcessPayload
from core.statuses import SpanStatus
from workers.pipeline.round.parts import RoundSpanParts
from workers.pipeline.round.spans import publish_spans
from workers.pipeline.round.state import KnowledgeState


def mark_attempt_failed(ctx: RoundSpanParts, payload: DocumentProcessPayload, error: str) -> None:
    # Guarded by attempt: a dead letter of an older round never fails a newer one.
    message = f"document processing failed after all attempts: {error}"
    if KnowledgeState(ctx, payload.knowledge_id, payload.attempt).fail(message):
        closed = ctx.spans.close_open(
            payload.knowledge_id, payload.attempt, SpanStatus.FAILED, "TASK_FAILED", message
        )
        publish_spans(ctx.publisher, closed)
