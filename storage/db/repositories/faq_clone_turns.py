"""An FAQ clone job's turn: which part of its task chain may run batches, and which run
of that part. A part claims the turn when it starts (only the job's current part can), a
run checks it still holds it before each batch, and hands it on to the next part before
queueing that part; a run whose turn passed (a retry after the hand-on, a run taken over
by a retry of its part) writes nothing more."""

from __future__ import annotations

from sqlalchemy import select, update

from core.statuses import JobStatus
from storage.db.engine import Database
from storage.db.models import KbCloneJob


class FaqCloneTurns:
    def __init__(self, db: Database) -> None:
        self._db = db

    def current_part(self, job_id: str) -> int | None:
        """The part whose turn it is; None when the job is gone."""
        with self._db.session() as session:
            return session.scalars(
                select(KbCloneJob.faq_part).where(KbCloneJob.id == job_id)
            ).one_or_none()

    def claim(self, job_id: str, part: int, runner: str) -> bool:
        """``runner`` holds the turn (taking it over from an earlier run of ``part``); False
        when it is not ``part``'s turn or the job is not processing."""
        query = (
            update(KbCloneJob)
            .where(
                KbCloneJob.id == job_id,
                KbCloneJob.faq_part == part,
                KbCloneJob.status == JobStatus.PROCESSING,
            )
            .values(faq_runner=runner)
            .returning(KbCloneJob.id)
        )
        with self._db.session() as session:
            return session.scalars(query).one_or_none() is not None

    def holds(self, job_id: str, part: int, runner: str) -> bool:
        query = select(KbCloneJob.id).where(
            KbCloneJob.id == job_id, KbCloneJob.faq_part == part, KbCloneJob.faq_runner == runner
        )
        with self._db.session() as session:
            return session.scalars(query).one_or_none() is not None

    def hand_on(self, job_id: str, part: int, runner: str) -> bool:
        """The turn passes to part ``part + 1`` (no run holds it until that part claims it);
        False when ``runner`` no longer held it."""
        query = (
            update(KbCloneJob)
            .where(
                KbCloneJob.id == job_id,
                KbCloneJob.faq_part == part,
                KbCloneJob.faq_runner == runner,
            )
            .values(faq_part=part + 1, faq_runner=None)
            .returning(KbCloneJob.id)
        )
        with self._db.session() as session:
            return session.scalars(query).one_or_none() is not None
