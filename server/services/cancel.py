"""CancelParse: stop a round that is pending, processing or finalizing.

The row moves to cancelled first (a guarded UPDATE on the status and attempt just read), so
every later write of the round's worker fails its guard; then its queued tasks are removed
and a running one is told to stop, an open summary closes as none and watchers hear the new
state. Chunks and index rows of a round cancelled before it finished indexing are removed
(the worker removes whatever it still writes after this, when it stops).

The round's open spans are closed by the worker when it actually stops, so the timeline
shows when the work ended; a round no worker holds (still pending) is closed here at once,
and one whose worker does not answer within ``STOP_GRACE_S`` is closed here after it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from core.errors import Aborted, FailedPrecondition, NotFound
from core.statuses import IN_FLIGHT, EnableStatus, ParseStatus, SummaryStatus
from server.services.identity import Identity
from server.services.lookup import owned_knowledge
from server.services.parts import CancelParts
from server.services.tags import TaggedKnowledge, tagged
from storage.db.models import Knowledge
from storage.events.base import ProgressEvent
from workers.enrichment.wiki.retract import retract_round
from workers.pipeline.round.cleanup import (
    CANCELLED,
    STOP_GRACE_S,
    close_round_spans,
    remove_round_products,
)

log = logging.getLogger(__name__)

_MESSAGE = "cancelled by the user"
_MOVE_ATTEMPTS = 3


@dataclass(frozen=True)
class HeldRound:
    """A cancelled round a worker may still be running."""

    knowledge_id: str
    attempt: int


@dataclass(frozen=True)
class Cancellation:
    knowledge: TaggedKnowledge
    held: HeldRound | None


class CancelService:
    def __init__(self, ctx: CancelParts, *, grace_s: float = STOP_GRACE_S) -> None:
        self._ctx = ctx
        self._grace_s = grace_s
        self._closers: set[asyncio.Task[None]] = set()

    def cancel(self, identity: Identity, knowledge_id: str) -> Cancellation:
        before = self._move_to_cancelled(owned_knowledge(self._ctx, identity, knowledge_id))
        ctx, attempt = self._ctx, before.attempt
        ctx.knowledges.close_open_summary(before.id, SummaryStatus.NONE)
        ctx.queue.cancel_group(before.id)
        ctx.publisher.publish(
            ProgressEvent(before.id, attempt, "state", {"parse_status": ParseStatus.CANCELLED})
        )
        if before.parse_status != ParseStatus.FINALIZING:
            kb = ctx.knowledge_bases.get(before.tenant_id, before.knowledge_base_id)
            model_key = kb.embedding_model_key if kb is not None else ""
            remove_round_products(ctx, before.id, attempt, model_key)
        # Whatever the round wrote into the wiki goes with it (a finalizing one may have).
        retract_round(ctx, before.id, attempt)
        held: HeldRound | None = HeldRound(before.id, attempt)
        if before.parse_status == ParseStatus.PENDING:
            close_round_spans(ctx, before.id, attempt, CANCELLED, _MESSAGE)
            held = None
        row = ctx.knowledges.get(before.id, before.tenant_id)
        if row is None:
            raise NotFound("sluice.v1.Knowledge", before.id)
        return Cancellation(tagged(ctx.tags, row), held)

    def _move_to_cancelled(self, row: Knowledge) -> Knowledge:
        """The guarded move from exactly the status read (re-read when a worker moved it
        meanwhile); returns the row as it was just before."""
        for _ in range(_MOVE_ATTEMPTS):
            if row.parse_status not in IN_FLIGHT:
                raise FailedPrecondition(
                    "NOT_IN_FLIGHT",
                    row.id,
                    "only a pending, processing or finalizing knowledge can be cancelled; "
                    f"this one is {row.parse_status}",
                )
            fields: dict[str, object] = {"pending_subtasks_count": 0, "error_message": ""}
            if row.parse_status != ParseStatus.FINALIZING:  # not indexed completely: not searchable
                fields["enable_status"] = EnableStatus.DISABLED
            if self._ctx.knowledges.transition(
                row.id,
                from_statuses=(row.parse_status,),
                to_status=ParseStatus.CANCELLED,
                attempt=row.attempt,
                **fields,
            ):
                return row
            fresh = self._ctx.knowledges.get(row.id, row.tenant_id)
            if fresh is None or fresh.parse_status == ParseStatus.DELETING:
                raise NotFound("sluice.v1.Knowledge", row.id)
            row = fresh
        raise Aborted("CONCURRENT_CHANGE", row.id, "the knowledge kept changing; retry")

    def close_spans_later(self, cancellation: Cancellation) -> None:
        """From the event loop: close what the worker left open once the grace is over."""
        if cancellation.held is None:
            return
        task = asyncio.create_task(self._close_after_grace(cancellation.held))
        self._closers.add(task)
        task.add_done_callback(self._closers.discard)

    async def _close_after_grace(self, held: HeldRound) -> None:
        await asyncio.sleep(self._grace_s)
        try:
            closed = await asyncio.to_thread(
                close_round_spans,
                self._ctx,
                held.knowledge_id,
                held.attempt,
                CANCELLED,
                f"{_MESSAGE}; no worker confirmed the stop",
            )
        except Exception:  # nobody awaits this task: log rather than lose the error
            log.exception("closing the spans of cancelled %s failed", held.knowledge_id)
            return
        if closed:
            log.info("closed %d spans of cancelled knowledge %s", closed, held.knowledge_id)
