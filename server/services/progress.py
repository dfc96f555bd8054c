"""GetSpans: the attempt's spans, the last heartbeat and, when quiet, the stall verdict."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import Enum

from core.statuses import IN_FLIGHT
from server.services.parts import ProgressParts, SpanReadParts
from storage.db.models import Knowledge, Span


class Stall(Enum):
    """The verdict on a round in flight that has been quiet (spec: stall_verdict_after_s)."""

    NONE = "none"  # not in flight, or the queue could not be asked
    RUNNING = "running"
    QUEUED = "queued"
    STALLED = "stalled"


@dataclass(frozen=True)
class SpanReading:
    knowledge: Knowledge
    attempt: int
    spans: list[Span]
    last_activity_at: datetime | None
    stall: Stall

    @property
    def sequence(self) -> int:
        return max((s.sequence for s in self.spans), default=0)


@dataclass(frozen=True)
class AttemptSpans:
    """A knowledge as stored now and the spans of one of its attempts."""

    knowledge: Knowledge
    attempt: int
    spans: list[Span]


class ProgressReads:
    """What WatchSpans reads of the database (server.api.watch_state)."""

    def __init__(self, ctx: ProgressParts) -> None:
        self._ctx = ctx

    def attempt_spans(self, knowledge_id: str, attempt: int) -> AttemptSpans | None:
        """The spans of ``attempt`` (0 = the current one); None once the knowledge is gone.
        Any tenant's: a stream joins only after the API checked that its caller owns the
        knowledge, and one read serves all of its streams."""
        # The row first: its span_sequence then covers every span change the list shows.
        row = self._ctx.knowledges.get(knowledge_id, None)
        if row is None:
            return None
        chosen = attempt or row.attempt
        return AttemptSpans(row, chosen, self._ctx.spans.list(knowledge_id, chosen, tenant_id=None))


def read_spans(ctx: SpanReadParts, row: Knowledge, attempt: int) -> SpanReading:
    chosen = attempt or row.attempt
    spans = ctx.spans.list(row.id, chosen, tenant_id=row.tenant_id)
    last = ctx.spans.last_activity(row.id, chosen) if row.parse_status in IN_FLIGHT else None
    return SpanReading(row, chosen, spans, last, _stall(ctx, row, last))


def _stall(ctx: SpanReadParts, row: Knowledge, last: datetime | None) -> Stall:
    if row.parse_status not in IN_FLIGHT:
        return Stall.NONE
    reference = last or row.updated_at
    if reference.tzinfo is None:
        reference = reference.replace(tzinfo=UTC)
    # The spec: after 20 minutes (stall_verdict_after_s) without progress, a verdict.
    quiet_for = timedelta(seconds=ctx.settings.api.stall_verdict_after_s)
    if ctx.clock.now() - reference < quiet_for:
        return Stall.RUNNING
    try:
        queued = ctx.queue.is_queued(row.id)
    except Exception:  # no verdict when the probe fails (spec)
        return Stall.NONE
    return Stall.QUEUED if queued else Stall.STALLED
