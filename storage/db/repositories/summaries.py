"""A knowledge's summary state machine (``summary_status``: none → pending → processing →
completed | failed), beside its parse: every move is one guarded UPDATE naming the round
(attempt) it belongs to, so a summary task of an older round never writes over a newer
one, and two tries of one task never both complete it (nor both count it done)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import and_, case, literal, update

from core.statuses import ParseStatus, SummaryStatus
from storage.db.engine import Database
from storage.db.models import Knowledge, UTCDateTime, utcnow
from storage.db.sql import affected_rows

# A summary is planned and written while its round finishes (processing, finalizing) or
# once it has (completed: a refresh).
SUMMARY_ROUND_STATUSES = (ParseStatus.PROCESSING, ParseStatus.FINALIZING, ParseStatus.COMPLETED)


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

    def complete(self, knowledge_id: str, attempt: int, summary: str) -> bool:
        """processing → completed with ``summary`` (no longer stale), and the round's
        subtask counter decremented in the same UPDATE (see ``_move``)."""
        return self._move(
            knowledge_id,
            attempt,
            [SummaryStatus.PROCESSING],
            status=SummaryStatus.COMPLETED,
            summary=summary,
            stale=False,
        )

    def fail(self, knowledge_id: str, attempt: int) -> bool:
        """pending or processing → failed (the document stays searchable without it), the
        counter decremented with it."""
        return self._move(
            knowledge_id,
            attempt,
            [SummaryStatus.PENDING, SummaryStatus.PROCESSING],
            status=SummaryStatus.FAILED,
        )

    def status(self, knowledge_id: str) -> str | None:
        with self._db.session() as session:
            row = session.get(Knowledge, knowledge_id)
            return None if row is None else row.summary_status

    def _move(
        self,
        knowledge_id: str,
        attempt: int,
        from_statuses: Iterable[str],
        *,
        status: SummaryStatus,
        summary: str | None = None,
        stale: bool | None = None,
    ) -> bool:
        now = utcnow()
        values: dict[str, object] = {"summary_status": status.value, "updated_at": now}
        if status in (SummaryStatus.COMPLETED, SummaryStatus.FAILED):
            # The summary is one of the round's post-processing subtasks: its end and the
            # counter's decrement are one write, so a try that ends it twice (a crash
            # between the two would allow that) never decrements twice. The last subtask
            # completes a finalizing knowledge; a completed one (a refresh) has no counter.
            count = Knowledge.pending_subtasks_count
            finalizing = and_(Knowledge.parse_status == ParseStatus.FINALIZING, count > 0)
            last = and_(finalizing, count == 1)
            values["pending_subtasks_count"] = case((finalizing, count - 1), else_=count)
            values["parse_status"] = case(
                (last, ParseStatus.COMPLETED.value), else_=Knowledge.parse_status
            )
            values["processed_at"] = case(
                (last, literal(now, UTCDateTime())), else_=Knowledge.processed_at
            )
        if summary is not None:
            values["summary"] = summary
        if stale is not None:
            values["summary_stale"] = stale
        statement = (
            update(Knowledge)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.attempt == attempt,
                Knowledge.parse_status.in_(SUMMARY_ROUND_STATUSES),
                Knowledge.summary_status.in_(list(from_statuses)),
            )
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0
