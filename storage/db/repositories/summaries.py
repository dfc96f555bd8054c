"""A knowledge's summary state machine (``summary_status``: none → pending → processing →
completed | failed), beside its parse: every move is one guarded UPDATE naming the round
(attempt) it belongs to, so a summary task of an older round never writes over a newer
one, and two tries of one task never both complete it (nor both count it done)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Update, and_, update

from core.statuses import ParseStatus, SummaryStatus
from storage.db.engine import Database
from storage.db.models import Knowledge, utcnow
from storage.db.repositories.knowledges import subtask_count_values
from storage.db.sql import affected_rows

# A round's summary is planned and written while the round finishes (processing,
# finalizing); once it is completed, only a refresh writes it (summary_refresh.py, with
# guards of its own), so a late try of the round's task never bypasses a refresh's snapshot.
SUMMARY_ROUND_STATUSES = (ParseStatus.PROCESSING, ParseStatus.FINALIZING)


class SummaryRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def plan(self, knowledge_id: str, attempt: int) -> bool:
        """The round's summary is queued: → pending (from any state but processing)."""
        return self._move(
            knowledge_id,
            attempt,
            [
                SummaryStatus.NONE,
                SummaryStatus.PENDING,
                SummaryStatus.COMPLETED,
                SummaryStatus.FAILED,
            ],
            status=SummaryStatus.PENDING,
        )

    def begin(self, knowledge_id: str, attempt: int) -> bool:
        """A try of the summary task starts: pending (or processing, a try after a crash)
        → processing. False: not this round's to write."""
        return self._move(
            knowledge_id,
            attempt,
            [SummaryStatus.PENDING, SummaryStatus.PROCESSING],
            status=SummaryStatus.PROCESSING,
        )

    def complete(self, knowledge_id: str, attempt: int, summary: str) -> SummaryEnd | None:
        """processing → completed with ``summary`` (no longer stale), and the round's
        subtask counter decremented in the same UPDATE (see ``_end``); None when it was
        not this round's to complete."""
        return self._end(
            knowledge_id,
            attempt,
            [SummaryStatus.PROCESSING],
            status=SummaryStatus.COMPLETED,
            summary=summary,
        )

    def fail(self, knowledge_id: str, attempt: int, error: str) -> SummaryEnd | None:
        """pending or processing → failed with why (the document stays searchable without
        it), the counter decremented with it."""
        return self._end(
            knowledge_id,
            attempt,
            [SummaryStatus.PENDING, SummaryStatus.PROCESSING],
            status=SummaryStatus.FAILED,
            error=error,
        )

    def abandon(self, knowledge_id: str, attempt: int) -> bool:
        """pending → failed without a decrement: the task was never queued, and the plan
        counts it off itself."""
        return self._move(
            knowledge_id, attempt, [SummaryStatus.PENDING], status=SummaryStatus.FAILED
        )

    def status(self, knowledge_id: str) -> str | None:
        with self._db.session() as session:
            row = session.get(Knowledge, knowledge_id)
            return None if row is None else row.summary_status

    def _move(
        self, knowledge_id: str, attempt: int, from_statuses: Iterable[str], *, status: str
    ) -> bool:
        values = {"summary_status": status, "updated_at": utcnow()}
        statement = self._guarded(knowledge_id, attempt, from_statuses).values(**values)
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0

    def _end(
        self,
        knowledge_id: str,
        attempt: int,
        from_statuses: Iterable[str],
        *,
        status: str,
        summary: str | None = None,
        error: str | None = None,
    ) -> SummaryEnd | None:
        # The summary is one of the round's post-processing subtasks: its end and the
        # counter's decrement are one write, so a try that ends it twice (a crash between
        # the two would allow that) never decrements twice. The last subtask completes a
        # finalizing knowledge; in any other state the counter is left alone.
        now = utcnow()
        finalizing = and_(
            Knowledge.parse_status == ParseStatus.FINALIZING, Knowledge.pending_subtasks_count > 0
        )
        values: dict[str, object] = {
            "summary_status": status,
            "updated_at": now,
            **subtask_count_values(-1, now, finalizing),
        }
        if summary is not None:
            values.update(summary=summary, summary_stale=False, summary_error=None)
        if error is not None:
            values.update(summary_error=error)
        statement = (
            self._guarded(knowledge_id, attempt, from_statuses)
            .values(**values)
            .returning(Knowledge.parse_status, Knowledge.processed_at)
        )
        with self._db.session() as session:
            row = session.execute(statement).one_or_none()
        if row is None:
            return None
        # Completed by this write (it alone sets processed_at to ``now``), not before it.
        return SummaryEnd(completed_round=row[0] == ParseStatus.COMPLETED and row[1] == now)

    def _guarded(self, knowledge_id: str, attempt: int, from_statuses: Iterable[str]) -> Update:
        return (
            update(Knowledge)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.attempt == attempt,
                Knowledge.parse_status.in_(SUMMARY_ROUND_STATUSES),
                Knowledge.summary_status.in_(list(from_statuses)),
            )
            .execution_options(synchronize_session=False)
        )


@dataclass(frozen=True)
class SummaryEnd:
    """A summary ended by this write; ``completed_round``: its decrement was the round's
    last subtask and completed the knowledge (its spans are the caller's to close)."""

    completed_round: bool
