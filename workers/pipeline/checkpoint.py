"""Cooperative stop points of one processing round (a knowledge's attempt).

A round must stop when its task was cancelled through the queue (CancelParse, Reparse and
Delete all call ``cancel_group``) or when the knowledge row is no longer this round's to
write: a newer attempt, cancelled, being deleted or gone. The pipeline asks between stages,
between embedding batches and every ``STOP_POLL_S`` during the docreader call, so a running
round stops within about a second of being told.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from storage.queue.base import NotInTaskError
from workers.context import WorkerContext
from workers.pipeline.errors import Superseded

# Checks cost a Redis EXISTS and a primary-key SELECT; checkpoints closer together than this
# reuse the last answer.
MIN_CHECK_INTERVAL_S = 0.2


class RoundCheckpoint:
    def __init__(
        self,
        ctx: WorkerContext,
        knowledge_id: str,
        attempt: int,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ctx = ctx
        self._knowledge_id = knowledge_id
        self._attempt = attempt
        self._clock = clock
        self._checked_at: float | None = None
        self._stop = False

    def should_stop(self) -> bool:
        """Whether the round must stop; once True, always True. Call it from the task's own
        thread: the queue's cancel flag belongs to the running task."""
        now = self._clock()
        if self._stop or (
            self._checked_at is not None and now - self._checked_at < MIN_CHECK_INTERVAL_S
        ):
            return self._stop
        self._checked_at = now
        self._stop = self._cancel_requested() or not self._row_is_current()
        return self._stop

    def check(self) -> None:
        """Raise Superseded when the round must stop."""
        if self.should_stop():
            raise Superseded(self._knowledge_id)

    def _cancel_requested(self) -> bool:
        try:
            return self._ctx.queue.cancel_requested()
        except NotInTaskError:  # run outside a queue (a direct call): only the row decides
            return False

    def _row_is_current(self) -> bool:
        return round_is_current(self._ctx, self._knowledge_id, self._attempt)


def round_is_current(ctx: WorkerContext, knowledge_id: str, attempt: int) -> bool:
    """The knowledge exists, is still at ``attempt`` and is processing."""
    row = ctx.knowledges.get(knowledge_id)
    return row is not None and row.attempt == attempt and row.parse_status == "processing"
