"""The reads and guarded writes of the housekeeping sweeps (stuck documents, summaries,
deletions).

Every write is a compare-and-set on what the sweep saw: the same status, the same attempt
and an ``updated_at`` no newer than the one read (any guarded transition bumps it), plus,
for in-flight rows, no span of that attempt heartbeating since the cutoff. So a row that
moved or showed life between the sweep's read and its write is left alone.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, exists, or_, select, update
from sqlalchemy.sql.elements import ColumnElement

from core.statuses import TERMINAL, EnableStatus, ParseStatus, SummaryStatus
from storage.db.engine import Database
from storage.db.models import Knowledge, Span, StorageResource, utcnow
from storage.db.repositories.resources import KNOWLEDGE_FILES
from storage.db.sql import affected_rows

_SUMMARY_OPEN = (SummaryStatus.PENDING.value, SummaryStatus.PROCESSING.value)


class HousekeepingRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    # ---- reads -------------------------------------------------------------------------

    def stale(
        self, statuses: Collection[str], cutoff: datetime | None, *, page_size: int = 500
    ) -> Iterator[Knowledge]:
        """Rows in ``statuses`` not updated since ``cutoff`` (None: any age), oldest first,
        read a page at a time (rows a sweep updates meanwhile drop out by ``cutoff``)."""
        condition = Knowledge.parse_status.in_(sorted(statuses))
        return self._pages(condition, cutoff, page_size)

    def stale_summaries(
        self,
        summary_status: str,
        cutoff: datetime | None,
        *,
        parse_done: bool,
        page_size: int = 500,
    ) -> Iterator[Knowledge]:
        """Rows whose summary is ``summary_status`` (with ``parse_done``: and whose parse is
        over), untouched since ``cutoff`` (None: any age)."""
        condition = Knowledge.summary_status == summary_status
        if parse_done:
            condition = and_(condition, Knowledge.parse_status.in_(TERMINAL))
        return self._pages(condition, cutoff, page_size)

    def _pages(
        self, condition: ColumnElement[bool], cutoff: datetime | None, page_size: int
    ) -> Iterator[Knowledge]:
        after: tuple[datetime, str] | None = None
        while True:
            query = select(Knowledge).where(condition)
            if cutoff is not None:
                query = query.where(Knowledge.updated_at < cutoff)
            if after is not None:
                query = query.where(
                    or_(
                        Knowledge.updated_at > after[0],
                        and_(Knowledge.updated_at == after[0], Knowledge.id > after[1]),
                    )
                )
            query = query.order_by(Knowledge.updated_at, Knowledge.id).limit(page_size)
            with self._db.session() as session:
                rows = list(session.scalars(query))
            yield from rows
            if len(rows) < page_size:
                return
            after = (rows[-1].updated_at, rows[-1].id)

    # ---- guarded writes ----------------------------------------------------------------

    def fail_stalled(self, seen: Knowledge, *, active_since: datetime | None, message: str) -> bool:
        """In-flight → failed for the attempt ``seen`` (subtasks 0, open summary failed)."""
        values = {
            "parse_status": ParseStatus.FAILED.value,
            "pending_subtasks_count": 0,
            "error_message": message,
            "summary_status": _close_summary(SummaryStatus.FAILED),
            "updated_at": utcnow(),
        }
        statement = (
            update(Knowledge)
            .where(*_unchanged_in_flight(seen, active_since))
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0

    def requeue_stalled(
        self,
        seen: Knowledge,
        *,
        active_since: datetime | None,
        message: str,
        max_requeues: int,
        counted: bool,
    ) -> int | None:
        """Start a new attempt for the stalled round ``seen``: pending again, disabled (its
        products are about to be removed), open summary reset. ``counted`` requeues use up
        one of ``max_requeues``; returns the new attempt, or None when the row moved or the
        budget is spent."""
        conditions = _unchanged_in_flight(seen, active_since)
        if counted:
            conditions.append(Knowledge.auto_requeues < max_requeues)
        statement = (
            update(Knowledge)
            .where(*conditions)
            .values(
                attempt=Knowledge.attempt + 1,
                auto_requeues=Knowledge.auto_requeues + (1 if counted else 0),
                parse_status=ParseStatus.PENDING.value,
                enable_status=EnableStatus.DISABLED,
                pending_subtasks_count=0,
                error_message=message,
                summary_status=_close_summary(SummaryStatus.NONE),
                processed_at=None,
                updated_at=utcnow(),
            )
            .returning(Knowledge.attempt)
        )
        with self._db.session() as session:
            return session.execute(statement).scalar_one_or_none()

    def fail_summary(self, seen: Knowledge, summary_status: str, message: str) -> bool:
        """The summary of ``seen`` (still ``summary_status``, row untouched) → failed, with
        why in summary_error (the summary written last, if any, stays)."""
        statement = (
            update(Knowledge)
            .where(
                Knowledge.id == seen.id,
                Knowledge.summary_status == summary_status,
                Knowledge.updated_at <= seen.updated_at,
            )
            .values(
                summary_status=SummaryStatus.FAILED.value,
                summary_error=message,
                updated_at=utcnow(),
            )
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0

    def fail_deletion(self, seen: Knowledge, message: str) -> bool:
        """A deletion that stopped half-way → failed, so the row shows up and can be deleted
        again. Its files were not deleted yet (they go after the row), so their catalog
        records are live again, in the same transaction."""
        statement = (
            update(Knowledge)
            .where(
                Knowledge.id == seen.id,
                Knowledge.parse_status == ParseStatus.DELETING,
                Knowledge.updated_at <= seen.updated_at,
            )
            .values(
                parse_status=ParseStatus.FAILED.value,
                error_message=message,
                updated_at=utcnow(),
            )
            .execution_options(synchronize_session=False)
        )
        restore = (
            update(StorageResource)
            .where(
                StorageResource.owner_type.in_(KNOWLEDGE_FILES),
                StorageResource.owner_id == seen.id,
            )
            .values(deleted_at=None)
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            if affected_rows(session.execute(statement)) == 0:
                return False
            session.execute(restore)
            return True


def _unchanged_in_flight(
    seen: Knowledge, active_since: datetime | None
) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [
        Knowledge.id == seen.id,
        Knowledge.parse_status == seen.parse_status,
        Knowledge.attempt == seen.attempt,
        Knowledge.updated_at <= seen.updated_at,
    ]
    if active_since is not None:
        # Checked in the same statement as the write, so a heartbeat that lands after the
        # sweep's read still saves the row.
        conditions.append(
            ~exists().where(
                and_(
                    Span.knowledge_id == Knowledge.id,
                    Span.attempt == Knowledge.attempt,
                    Span.updated_at >= active_since,
                )
            )
        )
    return conditions


def _close_summary(to: SummaryStatus) -> Any:
    return case(
        (Knowledge.summary_status.in_(_SUMMARY_OPEN), to.value),
        else_=Knowledge.summary_status,
    )
