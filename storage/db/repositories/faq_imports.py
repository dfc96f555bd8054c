"""FAQ import jobs and the outcome of their rows.

``start`` is the import lock: the insert of a pending job fails on the partial unique
index while another import of the knowledge base is pending or processing (see
FaqImportJob), so two API processes racing cannot both start one. ``record_batch`` writes a
batch's row outcomes, its counters and the entry writes it plans in one transaction,
guarded by the job's resume point: a batch is counted once, whichever attempt counts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from core.statuses import JobStatus
from storage.db.engine import Database
from storage.db.models import FaqImportJob, FaqImportRow, utcnow
from storage.db.sql import affected_rows, dialect_insert

_ACTIVE = (JobStatus.PENDING, JobStatus.PROCESSING)
FAILED_OUTCOMES = ("failed", "partial")


class ImportRunningError(Exception):
    """Another import of the knowledge base holds its lock."""

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id
        super().__init__(job_id)


@dataclass(frozen=True)
class RowOutcome:
    row_number: int
    # succeeded, failed, partial or skipped.
    outcome: str
    standard_question: str
    reason: str
    columns: dict[str, str]
    # The entry the row matched (skipped); those it writes get theirs in ``writes_done``.
    entry_id: str | None = None


@dataclass(frozen=True)
class BatchCounts:
    succeeded: int = 0
    failed: int = 0
    partial: int = 0
    skipped: int = 0


class FaqImportRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def start(self, **values: Any) -> FaqImportJob:
        """A pending job, unless the knowledge base has one pending or processing
        (ImportRunningError naming it)."""
        job = FaqImportJob(**values, status=JobStatus.PENDING)
        try:
            with self._db.session() as session:
                session.add(job)
        except IntegrityError:
            running = self.active_for(values["knowledge_base_id"])
            if running is None:
                raise
            raise ImportRunningError(running.id) from None
        return job

    def active_for(self, knowledge_base_id: str) -> FaqImportJob | None:
        with self._db.session() as session:
            return session.scalars(
                select(FaqImportJob).where(
                    FaqImportJob.knowledge_base_id == knowledge_base_id,
                    FaqImportJob.status.in_(_ACTIVE),
                )
            ).first()

    def get(self, scope: str | None, job_id: str) -> FaqImportJob | None:
        """The job, when ``scope`` (a tenant id; None: any) may see it."""
        query = select(FaqImportJob).where(FaqImportJob.id == job_id)
        if scope is not None:
            query = query.where(FaqImportJob.tenant_id == scope)
        with self._db.session() as session:
            return session.scalars(query).first()

    def begin(self, job_id: str) -> FaqImportJob | None:
        """Mark it processing (an attempt resumes a processing one) and count the attempt
        (its budget: workers.housekeeping.maintenance); None once it ended."""
        with self._db.session() as session:
            changed = session.execute(
                update(FaqImportJob)
                .where(FaqImportJob.id == job_id, FaqImportJob.status.in_(_ACTIVE))
                .values(
                    status=JobStatus.PROCESSING,
                    attempts=FaqImportJob.attempts + 1,
                    updated_at=utcnow(),
                )
            )
            if affected_rows(changed) == 0:
                return None
            return session.get(FaqImportJob, job_id)

    def set_total(self, job_id: str, total: int) -> None:
        with self._db.session() as session:
            session.execute(
                update(FaqImportJob)
                .where(FaqImportJob.id == job_id)
                .values(total=total, updated_at=utcnow())
            )

    def record_batch(
        self,
        job_id: str,
        *,
        processed_before: int,
        recoveries: int,
        rows: Sequence[RowOutcome],
        counts: BatchCounts,
        writes: list[dict[str, Any]] | None,
    ) -> bool:
        """Count a batch that began at row index ``processed_before`` and plan its writes;
        False (nothing written) when that batch was counted already, the job ended, or
        housekeeping queued it again since this attempt began (``recoveries`` moved on)."""
        now = utcnow()
        with self._db.session() as session:
            counted = session.execute(
                update(FaqImportJob)
                .where(
                    FaqImportJob.id == job_id,
                    FaqImportJob.status == JobStatus.PROCESSING,
                    FaqImportJob.processed == processed_before,
                    FaqImportJob.recoveries == recoveries,
                    FaqImportJob.pending_writes.is_(None),
                )
                .values(
                    processed=processed_before + len(rows),
                    succeeded=FaqImportJob.succeeded + counts.succeeded,
                    failed=FaqImportJob.failed + counts.failed,
                    partial=FaqImportJob.partial + counts.partial,
                    skipped=FaqImportJob.skipped + counts.skipped,
                    pending_writes=writes or None,
                    updated_at=now,
                )
            )
            if affected_rows(counted) == 0:
                return False
            if rows:
                # An executemany: one multi-VALUES statement of a whole batch costs more to
                # build and compile than to run.
                session.execute(
                    dialect_insert(self._db.dialect_name, FaqImportRow).on_conflict_do_nothing(),
                    [{"job_id": job_id, **vars(row)} for row in rows],
                )
        return True

    def writes_done(self, job_id: str, entry_ids: dict[int, str]) -> None:
        """The planned writes are done: each row's entry (by row number) is recorded."""
        with self._db.session() as session:
            if entry_ids:
                # One executemany by primary key, not one statement per row.
                session.execute(
                    update(FaqImportRow),
                    [
                        {"job_id": job_id, "row_number": row_number, "entry_id": entry_id}
                        for row_number, entry_id in entry_ids.items()
                    ],
                )
            session.execute(
                update(FaqImportJob)
                .where(FaqImportJob.id == job_id)
                .values(pending_writes=None, updated_at=utcnow())
            )

    def entry_ids(self, job_id: str) -> set[str]:
        """The entries the job's rows wrote, merged into or matched."""
        with self._db.session() as session:
            return set(
                session.scalars(
                    select(FaqImportRow.entry_id).where(
                        FaqImportRow.job_id == job_id, FaqImportRow.entry_id.is_not(None)
                    )
                )
            )

    def add_deleted(self, job_id: str, count: int) -> None:
        with self._db.session() as session:
            session.execute(
                update(FaqImportJob)
                .where(FaqImportJob.id == job_id)
                .values(deleted=FaqImportJob.deleted + count, updated_at=utcnow())
            )

    def finish(self, job_id: str, status: JobStatus, error_message: str | None = None) -> bool:
        """End it (completed or failed), once; False when it had ended already."""
        now = utcnow()
        with self._db.session() as session:
            ended = session.execute(
                update(FaqImportJob)
                .where(FaqImportJob.id == job_id, FaqImportJob.status.in_(_ACTIVE))
                .values(
                    status=status,
                    error_message=error_message,
                    pending_writes=None,
                    updated_at=now,
                    finished_at=now,
                )
            )
            return affected_rows(ended) == 1

    def failed_rows(self, job_id: str, *, after_row: int, limit: int) -> list[FaqImportRow]:
        """Failed and partially failed rows numbered above ``after_row``, in file order."""
        with self._db.session() as session:
            return list(
                session.scalars(
                    select(FaqImportRow)
                    .where(
                        FaqImportRow.job_id == job_id,
                        FaqImportRow.outcome.in_(FAILED_OUTCOMES),
                        FaqImportRow.row_number > after_row,
                    )
                    .order_by(FaqImportRow.row_number)
                    .limit(limit)
                )
            )
