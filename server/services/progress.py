"""GetSpans: the attempt's spans, the last heartbeat and, when quiet, the stall verdict."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sluice.v1 import common_pb2, knowledge_pb2

from core.statuses import IN_FLIGHT
from server.api import convert
from server.services.parts import SpanReadParts
from workers.pipeline.round.spans import span_to_dict


def read_spans(ctx: SpanReadParts, row: Any, attempt: int) -> knowledge_pb2.GetSpansResponse:
    chosen = attempt or row.attempt
    spans = ctx.spans.list(row.id, chosen, tenant_id=row.tenant_id)
    last = ctx.spans.last_activity(row.id, chosen) if row.parse_status in IN_FLIGHT else None
    return knowledge_pb2.GetSpansResponse(
        knowledge_id=row.id,
        attempt=chosen,
        spans=[convert.span(span_to_dict(s)) for s in spans],
        parse_status=convert.parse_status(row.parse_status),
        last_activity_at=convert.timestamp(last),
        stall_state=_stall_state(ctx, row, last),
        sequence=max((s.sequence for s in spans), default=0),
    )


def _stall_state(ctx: SpanReadParts, row: Any, last: datetime | None) -> common_pb2.StallState:
    if row.parse_status not in IN_FLIGHT:
        return common_pb2.STALL_STATE_UNSPECIFIED
    reference = last or row.updated_at
    if reference.tzinfo is None:
        reference = reference.replace(tzinfo=UTC)
    # The spec: after 20 minutes (stall_verdict_after_s) without progress, a verdict.
    quiet_for = timedelta(seconds=ctx.settings.api.stall_verdict_after_s)
    if ctx.clock.now() - reference < quiet_for:
        return common_pb2.STALL_STATE_RUNNING
    try:
        queued = ctx.queue.is_queued(row.id)
    except Exception:  # no verdict when the probe fails (spec)
        return common_pb2.STALL_STATE_UNSPECIFIED
    return common_pb2.STALL_STATE_QUEUED if queued else common_pb2.STALL_STATE_STALLED
