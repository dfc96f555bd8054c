"""Knowledge base clone jobs (``kb_clone_jobs``) and what they read of the two knowledge
bases: the source's cloneable knowledges and the target's clones.

A job is planned once (``start``: its total), then each of its items (one knowledge cloned,
one batch of deletions) ends exactly once (``end_item``, recorded in ``kb_clone_items``);
the end that brings ``done`` to ``total`` ends the job, failed when any item failed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.statuses import JobStatus, ParseStatus
from storage.db.engine import Database
from storage.db.models import KbCloneItem, KbCloneJob, Knowledge, utcnow
from storage.db.sql import dialect_insert

# The job's error names at most this many failed items (and counts the rest).
_NAMED_FAILURES = 10


class CloneRunningError(Exception):
    """Another clone into the knowledge base holds its lock."""

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id
        super().__init__(job_id)


@dataclass(frozen=True)
class ItemEnd:
    """One item of a job: ``removed`` for a deletion batch, ``synced`` for FAQ entries whose
    state was synced (counted in ``done`` only), else a clone; ``error`` empty when it
    succeeded."""

    item: str
    count: int = 1
    error: str = ""
    removed: bool = False
    synced: bool = False


@dataclass(frozen=True)
class FaqClonePlan:
    """An FAQ knowledge base's entries by content hash, in batches: target entries the
    source no longer has (``remove``), source entries the target lacks (``add``), and
    (source, target) pairs of matching entries whose state is synced (``sync``)."""

    remove: Sequence[Sequence[str]] = ()
    add: Sequence[Sequence[str]] = ()
    sync: Sequence[Sequence[tuple[str, str]]] = ()

    @property
    def total(self) -> int:
        return sum(len(batch) for part in (self.remove, self.add, self.sync) for batch in part)

    def as_json(self) -> dict[str, Any]:
        return {
            "remove": [list(b) for b in self.remove],
            "add": [list(b) for b in self.add],
            "sync": [[list(pair) for pair in b] for b in self.sync],
        }

    @classmethod
    def of_json(cls, stored: dict[str, Any]) -> FaqClonePlan:
        return cls(
            [list(b) for b in stored.get("remove", [])],
            [list(b) for b in stored.get("add", [])],
            [[(str(s), str(t)) for s, t in b] for b in stored.get("sync", [])],
        )


@dataclass(frozen=True)
class ClonePlan:
    """Source knowledges to clone, and batches of target knowledges to delete; for an FAQ
    knowledge base, its entries' difference instead (``faq``)."""

    clone: Sequence[str]
    delete: Sequence[Sequence[str]]
    faq: FaqClonePlan | None = None

    @property
    def total(self) -> int:
        faq = self.faq.total if self.faq is not None else 0
        return len(self.clone) + sum(len(batch) for batch in self.delete) + faq

    @classmethod
    def of(cls, job: KbCloneJob) -> ClonePlan:
        stored = job.plan or {}
        faq = stored.get("faq")
        return cls(
            list(stored.get("clone", [])),
            [list(b) for b in stored.get("delete", [])],
            FaqClonePlan.of_json(faq) if faq is not None else None,
        )

    def as_json(self) -> dict[str, Any]:
        stored: dict[str, Any] = {
            "clone": list(self.clone),
            "delete": [list(b) for b in self.delete],
        }
        if self.faq is not None:
            stored["faq"] = self.faq.as_json()
        return stored


class CloneJobRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, tenant_id: str, source_id: str, target_id: str) -> KbCloneJob:
        """A pending job, unless a clone into ``target_id`` is open (CloneRunningError
        naming it): the partial unique index on the target is the lock (see KbCloneJob)."""
        job = KbCloneJob(
            tenant_id=tenant_id,
            source_knowledge_base_id=source_id,
            target_knowledge_base_id=target_id,
        )
        try:
            with self._db.session() as session:
                session.add(job)
        except IntegrityError:
            running = self.open_for_target(target_id)
            if running is None:
                raise
            raise CloneRunningError(running.id) from None
        return job

    def get(self, job_id: str, tenant_id: str | None) -> KbCloneJob | None:
        """The job if it is ``tenant_id``'s (None: any tenant's)."""
        query = select(KbCloneJob).where(KbCloneJob.id == job_id)
        if tenant_id is not None:
            query = query.where(KbCloneJob.tenant_id == tenant_id)
        with self._db.session() as session:
            return session.scalars(query).one_or_none()

    def start(self, job_id: str, plan: ClonePlan, skipped: int) -> KbCloneJob | None:
        """Planned: its items to end (a job with none is completed at once). None when the
        job was planned already (a retried plan) or ended."""
        now = utcnow()
        total = plan.total
        done = total == 0
        query = (
            update(KbCloneJob)
            .where(KbCloneJob.id == job_id, KbCloneJob.status == JobStatus.PENDING)
            .values(
                status=JobStatus.COMPLETED if done else JobStatus.PROCESSING,
                total=total,
                skipped=skipped,
                plan=plan.as_json(),
                updated_at=now,
                finished_at=now if done else None,
            )
            .returning(KbCloneJob)
        )
        with self._db.session() as session:
            return session.scalars(query).one_or_none()

    def end_item(self, job_id: str, end: ItemEnd) -> KbCloneJob | None:
        """Record ``end`` once and count it; the job as it is then. None when this item had
        ended already (a retry or a dead letter after a try ended it) or the job is over."""
        now = utcnow()
        record = (
            dialect_insert(self._db.dialect_name, KbCloneItem)
            .values(job_id=job_id, item=end.item, count=end.count, error=end.error, ended_at=now)
            .on_conflict_do_nothing()
            .returning(KbCloneItem.item)
        )
        with self._db.session() as session:
            job = session.scalars(
                select(KbCloneJob)
                .where(KbCloneJob.id == job_id, KbCloneJob.status == JobStatus.PROCESSING)
                .with_for_update()
            ).one_or_none()
            if job is None or session.execute(record).one_or_none() is None:
                return None
            job.done += end.count
            if end.error:
                job.failed += end.count
            elif end.removed:
                job.removed += end.count
            elif not end.synced:
                job.added += end.count
            job.updated_at = now
            if job.done >= job.total:
                job.status = JobStatus.FAILED if job.failed else JobStatus.COMPLETED
                job.error_message = _failures(session, job_id) if job.failed else None
                job.finished_at = now
            session.flush()
            session.expunge(job)
        return job

    def fail(self, job_id: str, error: str) -> KbCloneJob | None:
        """The job failed as a whole (its plan could not be made): None when it had ended."""
        now = utcnow()
        query = (
            update(KbCloneJob)
            .where(KbCloneJob.id == job_id, KbCloneJob.status.in_(_OPEN))
            .values(status=JobStatus.FAILED, error_message=error, updated_at=now, finished_at=now)
            .returning(KbCloneJob)
        )
        with self._db.session() as session:
            return session.scalars(query).one_or_none()

    def open_for_target(self, target_id: str) -> KbCloneJob | None:
        """A job still cloning into ``target_id`` (one at a time per target)."""
        query = select(KbCloneJob).where(
            KbCloneJob.target_knowledge_base_id == target_id, KbCloneJob.status.in_(_OPEN)
        )
        with self._db.session() as session:
            return session.scalars(query.limit(1)).one_or_none()

    # -- the two knowledge bases ------------------------------------------------------------

    def source_knowledges(self, knowledge_base_id: str) -> Sequence[Knowledge]:
        """Every knowledge of the source but those being deleted, oldest first."""
        query = (
            select(Knowledge)
            .where(
                Knowledge.knowledge_base_id == knowledge_base_id,
                Knowledge.parse_status != ParseStatus.DELETING,
            )
            .order_by(Knowledge.created_at, Knowledge.id)
        )
        with self._db.session() as session:
            return list(session.scalars(query))

    def clones_in(self, knowledge_base_id: str) -> Sequence[Knowledge]:
        """The knowledges of ``knowledge_base_id`` cloned from another one."""
        query = select(Knowledge).where(
            Knowledge.knowledge_base_id == knowledge_base_id,
            Knowledge.clone_source_id.is_not(None),
        )
        with self._db.session() as session:
            return list(session.scalars(query))

    def ended_items(self, job_id: str) -> set[str]:
        """The items of the job that ended already (a resumed FAQ clone skips them)."""
        query = select(KbCloneItem.item).where(KbCloneItem.job_id == job_id)
        with self._db.session() as session:
            return set(session.scalars(query))

    def clone_of(self, knowledge_base_id: str, source_id: str) -> Knowledge | None:
        query = select(Knowledge).where(
            Knowledge.knowledge_base_id == knowledge_base_id,
            Knowledge.clone_source_id == source_id,
        )
        with self._db.session() as session:
            return session.scalars(query).one_or_none()


_OPEN = (JobStatus.PENDING, JobStatus.PROCESSING)


def _failures(session: Session, job_id: str) -> str:
    """The job's error: its failed items' errors (each names its knowledge)."""
    total = session.scalar(
        select(func.count()).where(KbCloneItem.job_id == job_id, KbCloneItem.error != "")
    )
    errors = session.scalars(
        select(KbCloneItem.error)
        .where(KbCloneItem.job_id == job_id, KbCloneItem.error != "")
        .order_by(KbCloneItem.ended_at, KbCloneItem.item)
        .limit(_NAMED_FAILURES)
    )
    named = "; ".join(errors)
    more = (total or 0) - _NAMED_FAILURES
    return f"{total} item(s) failed: {named}" + (f"; and {more} more" if more > 0 else "")
