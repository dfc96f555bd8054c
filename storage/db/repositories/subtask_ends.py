"""The ends of a round's post-processing subtasks that can end more than once (spec:
FinalizeSubtask, made idempotent): a question batch retried after it ended, or whose dead
letter runs after a try ended it, must count the round down exactly once.

``end_once`` records the end and decrements the round's counter in one transaction, and
decrements only when the record is new; the knowledge row is locked first, so the record
is only written for a round that is still current (at ``attempt`` and finalizing)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update

from core.statuses import ParseStatus
from storage.db.engine import Database
from storage.db.models import Knowledge, SubtaskEnd, utcnow
from storage.db.repositories.knowledges import subtask_count_values
from storage.db.sql import dialect_insert


@dataclass(frozen=True)
class EndOutcome:
    """An end recorded by ``end_once``. ``counted``: this call counted the subtask down
    (False: an earlier call had); ``completed_round``: its decrement was the round's last
    and completed the knowledge (its spans are the caller's to close)."""

    counted: bool
    completed_round: bool = False


class SubtaskEndRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def end_once(self, knowledge_id: str, attempt: int, kind: str, index: int) -> EndOutcome | None:
        """Subtask ``kind`` ``index`` of round ``attempt`` ended: record it and count it down,
        once. None when the round is no longer current (reparsed, cancelled, deleted, or
        failed by housekeeping): nothing is recorded."""
        now = utcnow()
        guard = (
            select(Knowledge.id)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.attempt == attempt,
                Knowledge.parse_status == ParseStatus.FINALIZING,
            )
            .with_for_update()
        )
        record = (
            dialect_insert(self._db.dialect_name, SubtaskEnd)
            .values(
                knowledge_id=knowledge_id,
                attempt=attempt,
                kind=kind,
                subtask_index=index,
                ended_at=now,
            )
            .on_conflict_do_nothing()
            # A row only when it was inserted (rowcount is not reliable for inserts).
            .returning(SubtaskEnd.subtask_index)
        )
        decrement = (
            update(Knowledge)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.attempt == attempt,
                Knowledge.pending_subtasks_count > 0,
            )
            .values(**subtask_count_values(-1, now), updated_at=now)
            .returning(Knowledge.parse_status, Knowledge.processed_at)
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            if session.scalar(guard) is None:
                return None
            if session.execute(record).one_or_none() is None:
                return EndOutcome(counted=False)
            row = session.execute(decrement).one_or_none()
        # Completed by this write (it alone sets processed_at to ``now``), not before it.
        completed = row is not None and row[0] == ParseStatus.COMPLETED and row[1] == now
        return EndOutcome(counted=True, completed_round=completed)

    def ended(self, knowledge_id: str, attempt: int, kind: str, index: int) -> bool:
        """Whether subtask ``kind`` ``index`` of round ``attempt`` has ended."""
        query = select(SubtaskEnd.subtask_index).where(
            SubtaskEnd.knowledge_id == knowledge_id,
            SubtaskEnd.attempt == attempt,
            SubtaskEnd.kind == kind,
            SubtaskEnd.subtask_index == index,
        )
        with self._db.session() as session:
            return session.scalar(query) is not None
