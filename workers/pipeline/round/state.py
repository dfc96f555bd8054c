"""A knowledge's parse_status moves only through guarded UPDATEs for one attempt.

Each move is ``UPDATE ... WHERE parse_status IN (...) AND attempt = ?``, so a worker of an
older attempt, or one racing a cancel or a delete, can never move the row backwards. Every
move that lands is published as a "state" event for watchers.
"""

from __future__ import annotations

from datetime import UTC, datetime

from storage.events.base import ProgressEvent
from workers.context import WorkerContext
from workers.pipeline.round.checkpoint import round_is_current
from workers.pipeline.round.errors import Superseded
from workers.public_text import without_temp_paths

IN_FLIGHT = ("pending", "processing", "finalizing")
TERMINAL = frozenset({"completed", "failed", "cancelled"})


class KnowledgeState:
    def __init__(self, ctx: WorkerContext, knowledge_id: str, attempt: int) -> None:
        self._ctx = ctx
        self._id = knowledge_id
        self._attempt = attempt

    def start(self) -> bool:
        """pending/processing → processing (a retry of the same attempt re-enters)."""
        return self._move(("pending", "processing"), "processing", error_message="")

    def ensure_current(self) -> None:
        """Raise Superseded when the row is no longer this attempt's to write."""
        if not round_is_current(self._ctx, self._id, self._attempt):
            raise Superseded(self._id)

    def enable(self) -> None:
        """Searchable as soon as indexing is done, before enrichment (spec)."""
        changed = self._ctx.knowledges.transition(
            self._id,
            from_statuses=("processing",),
            to_status="processing",
            attempt=self._attempt,
            enable_status="enabled",
        )
        if not changed:
            raise Superseded(self._id)
        self._publish("processing", enable_status="enabled")

    def complete(self) -> bool:
        return self._move(("processing", "finalizing"), "completed", processed_at=datetime.now(UTC))

    def fail(self, message: str) -> bool:
        return self._move(
            IN_FLIGHT, "failed", error_message=without_temp_paths(message), pending_subtasks_count=0
        )

    def _move(self, from_statuses: tuple[str, ...], to_status: str, **fields: object) -> bool:
        changed = self._ctx.knowledges.transition(
            self._id,
            from_statuses=from_statuses,
            to_status=to_status,
            attempt=self._attempt,
            **fields,
        )
        if changed:
            self._publish(to_status, error_message=str(fields.get("error_message", "")))
        return changed

    def _publish(self, status: str, **data: str) -> None:
        self._ctx.publisher.publish(
            ProgressEvent(
                knowledge_id=self._id,
                attempt=self._attempt,
                kind="state",
                data={"parse_status": status, **data},
            )
        )
