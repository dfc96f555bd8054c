"""A knowledge's parse_status moves only through guarded UPDATEs for one attempt.

Each move is ``UPDATE ... WHERE parse_status IN (...) AND attempt = ?``, so a worker of an
older attempt, or one racing a cancel or a delete, can never move the row backwards. Every
move that lands is published as a "state" event for watchers.
"""

from __future__ import annotations

from datetime import UTC, datetime

from core.public_text import without_temp_paths
from core.statuses import IN_FLIGHT, EnableStatus, ParseStatus
from storage.events.base import ProgressEvent
from workers.pipeline.round.checkpoint import round_is_current
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.parts import StateParts


class KnowledgeState:
    def __init__(self, ctx: StateParts, knowledge_id: str, attempt: int) -> None:
        self._ctx = ctx
        self._id = knowledge_id
        self._attempt = attempt

    def start(self) -> bool:
        """pending/processing → processing (a retry of the same attempt re-enters)."""
        return self._move(
            (ParseStatus.PENDING, ParseStatus.PROCESSING), ParseStatus.PROCESSING, error_message=""
        )

    def ensure_current(self) -> None:
        """Raise Superseded when the row is no longer this attempt's to write."""
        if not round_is_current(self._ctx, self._id, self._attempt):
            raise Superseded(self._id)

    def enable(self) -> None:
        """Searchable as soon as indexing is done, before enrichment (spec)."""
        changed = self._ctx.knowledges.transition(
            self._id,
            from_statuses=(ParseStatus.PROCESSING,),
            to_status=ParseStatus.PROCESSING,
            attempt=self._attempt,
            enable_status=EnableStatus.ENABLED,
        )
        if not changed:
            raise Superseded(self._id)
        self._publish(ParseStatus.PROCESSING, enable_status=EnableStatus.ENABLED)

    def finalize(self, pending_subtasks: int) -> bool:
        """processing → finalizing with the enrichment subtasks to wait for, in one guarded
        update (spec: SetFinalizing); False when the round is not current."""
        return self._move(
            (ParseStatus.PROCESSING,),
            ParseStatus.FINALIZING,
            pending_subtasks_count=pending_subtasks,
        )

    def is_completed(self) -> bool:
        """Completed at this attempt already (its last subtask's count did it)."""
        row = self._ctx.knowledges.get(self._id, None)
        return (
            row is not None
            and row.attempt == self._attempt
            and row.parse_status == ParseStatus.COMPLETED
        )

    def published_completed(self) -> None:
        """Tell watchers of a completion the counters' update made (no move of our own)."""
        self._publish(ParseStatus.COMPLETED)

    def complete(self) -> bool:
        return self._move(
            (ParseStatus.PROCESSING, ParseStatus.FINALIZING),
            ParseStatus.COMPLETED,
            processed_at=datetime.now(UTC),
        )

    def fail(self, message: str) -> bool:
        return self._move(
            IN_FLIGHT,
            ParseStatus.FAILED,
            error_message=without_temp_paths(message),
            pending_subtasks_count=0,
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
