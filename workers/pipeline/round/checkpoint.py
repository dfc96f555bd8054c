"""Cooperative stop points of one processing round (a knowledge's attempt).

A round must stop when its task was cancelled through the queue (CancelParse, Reparse and
Delete all call ``cancel_group``) or when the knowledge row is no longer this round's to
write: a newer attempt, cancelled, being deleted or gone. The pipeline asks between stages,
between embedding batches and every ``STOP_POLL_S`` during the docreader call, so a running
round stops within about a second of being told. The same points answer a worker's shutdown:
``check()`` then raises TaskInterrupted, and the queue hands the task back.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from typing import TypeGuard

from core.statuses import ParseStatus
from storage.db.models import Knowledge
from storage.queue.base import NotInTaskError, TaskInterrupted
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.parts import CheckpointParts, RowParts

# Checks cost a Redis EXISTS and a primary-key SELECT; checkpoints closer together than this
# reuse the last answer.
MIN_CHECK_INTERVAL_S = 0.2
# A round writes while its knowledge is processing.
ROUND_STATUSES: tuple[str, ...] = (ParseStatus.PROCESSING,)


class RoundCheckpoint:
    def __init__(
        self,
        ctx: CheckpointParts,
        knowledge_id: str,
        attempt: int,
        *,
        statuses: Collection[str] = ROUND_STATUSES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ctx = ctx
        self._knowledge_id = knowledge_id
        self._attempt = attempt
        # Where the round may still write: processing for the pipeline itself; tasks that
        # derive products later (table profiles) also after it finished.
        self._statuses = statuses
        self._clock = clock
        self._checked_at: float | None = None
        self._stop = False

    def should_stop(self, *, fresh: bool = False) -> bool:
        """Whether the round must stop; once True, always True. Call it from the task's own
        thread: the queue's cancel flag belongs to the running task. ``fresh`` asks again
        even if the last answer is recent (a last check before declaring the work done).
        A worker's shutdown also answers True (callers polling a long call stop it)."""
        if self.shutdown_requested():
            return True
        now = self._clock()
        if self._stop or (
            not fresh
            and self._checked_at is not None
            and now - self._checked_at < MIN_CHECK_INTERVAL_S
        ):
            return self._stop
        self._checked_at = now
        self._stop = self._cancel_requested() or not self._row_is_current()
        return self._stop

    def check(self, *, fresh: bool = False) -> None:
        """Raise TaskInterrupted when the worker shuts down, Superseded when the round must
        stop."""
        if self.shutdown_requested():
            raise TaskInterrupted(f"knowledge {self._knowledge_id}: worker shutting down")
        if self.should_stop(fresh=fresh):
            raise Superseded(self._knowledge_id)

    def shutdown_requested(self) -> bool:
        try:
            return self._ctx.queue.shutdown_requested()
        except NotInTaskError:
            return False

    def _cancel_requested(self) -> bool:
        try:
            return self._ctx.queue.cancel_requested()
        except NotInTaskError:  # run outside a queue (a direct call): only the row decides
            return False

    def _row_is_current(self) -> bool:
        return round_is_current(self._ctx, self._knowledge_id, self._attempt, self._statuses)


def round_is_current(
    ctx: RowParts,
    knowledge_id: str,
    attempt: int,
    statuses: Collection[str] = ROUND_STATUSES,
) -> bool:
    """The knowledge exists, is still at ``attempt`` and in one of ``statuses``."""
    return row_is_current(ctx.knowledges.get(knowledge_id, None), attempt, statuses)


def row_is_current(
    row: Knowledge | None, attempt: int, statuses: Collection[str] = ROUND_STATUSES
) -> TypeGuard[Knowledge]:
    return row is not None and row.attempt == attempt and row.parse_status in statuses
