"""The guarded writes of housekeeping's recovery of maintenance jobs (FAQ imports,
knowledge moves, KB clones) whose worker died.

Each write is a compare-and-set on what the sweep read: still pending or processing, the
same ``recoveries`` and an ``updated_at`` no newer than the one read. So of two
housekeepers only one requeues a job, and a job that moved on between the read and the
write (its worker came back, it ended) is left alone. A requeue bumps ``recoveries``,
which the job's own guarded writes compare with the value they started with: an attempt
that was superseded can record nothing more.

``attempts`` counts the task's attempts that started (``attempt_started``, at each one's
start), retried by the queue or requeued here alike: the one budget of both.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import select, update

from core.statuses import JobStatus
from storage.db.engine import Database
from storage.db.models import FaqImportJob, KbCloneJob, KnowledgeMoveJob, utcnow
from storage.db.sql import affected_rows

MaintenanceJob = FaqImportJob | KnowledgeMoveJob | KbCloneJob
MaintenanceModel = type[FaqImportJob] | type[KnowledgeMoveJob] | type[KbCloneJob]

_ACTIVE = (JobStatus.PENDING.value, JobStatus.PROCESSING.value)


class MaintenanceJobRepository:
    def __init__(self, db: Database, model: MaintenanceModel) -> None:
        self._db = db
        self._model = model

    def unattended(self, before: datetime) -> list[MaintenanceJob]:
        """Pending or processing jobs not written since ``before``, oldest first."""
        model = self._model
        query = (
            select(model)
            .where(model.status.in_(_ACTIVE), model.updated_at < before)
            .order_by(model.updated_at)
        )
        with self._db.session() as session:
            rows = cast(list[MaintenanceJob], list(session.scalars(query)))
            session.expunge_all()
            return rows

    def attempt_started(self, job_id: str) -> None:
        """One more attempt of a job still pending or processing has begun."""
        model = self._model
        statement = (
            update(model)
            .where(model.id == job_id, model.status.in_(_ACTIVE))
            .values(attempts=model.attempts + 1, updated_at=utcnow())
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            session.execute(statement)

    def requeued(self, seen: MaintenanceJob) -> bool:
        """Count one more recovery of ``seen``, unless it moved since it was read."""
        return self._guarded(seen, {"recoveries": seen.recoveries + 1})

    def fail(self, seen: MaintenanceJob, message: str) -> bool:
        """End ``seen`` failed with ``message``, unless it moved since it was read."""
        now = utcnow()
        values = {"status": JobStatus.FAILED.value, "error_message": message, "finished_at": now}
        return self._guarded(seen, values)

    def _guarded(self, seen: MaintenanceJob, values: dict[str, object]) -> bool:
        model = self._model
        statement = (
            update(model)
            .where(
                model.id == seen.id,
                model.status.in_(_ACTIVE),
                model.recoveries == seen.recoveries,
                model.updated_at <= seen.updated_at,
            )
            .values(**values, updated_at=utcnow())
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0
