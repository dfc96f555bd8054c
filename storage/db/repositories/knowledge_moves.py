"""Knowledge moves: the jobs' rows (``knowledge_move_jobs``) and the one transaction that
moves a knowledge's rows to another knowledge base.

The move of the rows is the commit point of a knowledge's move: its chunks and the
knowledge itself take the target's id and its tag links go (tags belong to a knowledge
base), together or not at all, and only while the knowledge is still in the source and not
being processed, so a retried move never moves it twice and a reparse or delete that got
in first is never overtaken."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select, update

from core.statuses import IN_FLIGHT, JobStatus, ParseStatus
from storage.db.engine import Database
from storage.db.models import Chunk, Knowledge, KnowledgeMoveJob, KnowledgeTag, utcnow
from storage.db.sql import affected_rows

# Statuses a knowledge cannot be moved in: a round is writing its products, or it is
# being deleted.
UNMOVABLE = (*IN_FLIGHT, ParseStatus.DELETING)


class KnowledgeMoveRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    # ── jobs ─────────────────────────────────────────────────────────────────────────────

    def create_job(
        self,
        *,
        tenant_id: str,
        source_knowledge_base_id: str,
        target_knowledge_base_id: str,
        mode: str,
        knowledge_ids: Sequence[str],
    ) -> KnowledgeMoveJob:
        job = KnowledgeMoveJob(
            tenant_id=tenant_id,
            source_knowledge_base_id=source_knowledge_base_id,
            target_knowledge_base_id=target_knowledge_base_id,
            mode=mode,
            knowledge_ids=list(knowledge_ids),
            total=len(knowledge_ids),
            failures={},
        )
        with self._db.session() as session:
            session.add(job)
            session.flush()
            session.expunge(job)
        return job

    def keep_payload(self, job_id: str, payload: dict[str, object]) -> None:
        """The payload the job is queued with: housekeeping queues it again if the task
        is lost (its worker killed)."""
        with self._db.session() as session:
            session.execute(
                update(KnowledgeMoveJob)
                .where(KnowledgeMoveJob.id == job_id)
                .values(task_payload=payload)
            )

    def get_job(self, job_id: str, tenant_id: str | None) -> KnowledgeMoveJob | None:
        """The job, when it is ``tenant_id``'s (None: any tenant's)."""
        with self._db.session() as session:
            job = session.get(KnowledgeMoveJob, job_id)
            if job is None or (tenant_id is not None and job.tenant_id != tenant_id):
                return None
            session.expunge(job)
            return job

    def record(
        self,
        job_id: str,
        *,
        done: int,
        failures: dict[str, str],
        status: str | None = None,
        recoveries: int | None = None,
    ) -> bool:
        """The job's progress as the worker counts it now (a retried task counts again from
        the rows, so a count is set, never added to); ``status`` processing while it runs.
        A job already ended is left alone, and so is one housekeeping queued again since the
        attempt began (``recoveries``, when given, moved on): False then."""
        values: dict[str, object] = {
            "done": done,
            "failed": len(failures),
            "failures": dict(failures),
            "updated_at": utcnow(),
        }
        if status is not None:
            values["status"] = status
        return self._update_open(job_id, values, recoveries)

    def finish(self, job_id: str, status: str, error_message: str | None = None) -> bool:
        """End the job (completed or failed); False when it had ended already."""
        now = utcnow()
        values = {"status": status, "error_message": error_message, "updated_at": now}
        return self._update_open(job_id, {**values, "finished_at": now})

    def _update_open(
        self, job_id: str, values: dict[str, object], recoveries: int | None = None
    ) -> bool:
        statement = update(KnowledgeMoveJob).where(
            KnowledgeMoveJob.id == job_id,
            KnowledgeMoveJob.status.in_([JobStatus.PENDING, JobStatus.PROCESSING]),
        )
        if recoveries is not None:
            statement = statement.where(KnowledgeMoveJob.recoveries == recoveries)
        statement = statement.values(**values)
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0

    # ── the commit point of one knowledge's move ─────────────────────────────────────────

    def move_rows(self, knowledge_id: str, source_kb_id: str, target_kb_id: str) -> bool:
        """The knowledge and its chunks into ``target_kb_id``, its tag links removed, in one
        transaction; False (nothing changed) unless it was in ``source_kb_id`` and in a
        movable status. The knowledge row is locked first, so a status change waits."""
        with self._db.session() as session:
            locked = session.scalar(
                select(Knowledge.id)
                .where(
                    Knowledge.id == knowledge_id,
                    Knowledge.knowledge_base_id == source_kb_id,
                    Knowledge.parse_status.not_in([s.value for s in UNMOVABLE]),
                )
                .with_for_update()
            )
            if locked is None:
                return False
            session.execute(
                update(Chunk)
                .where(Chunk.knowledge_id == knowledge_id)
                .values(knowledge_base_id=target_kb_id, updated_at=utcnow())
            )
            session.execute(delete(KnowledgeTag).where(KnowledgeTag.knowledge_id == knowledge_id))
            session.execute(
                update(Knowledge)
                .where(Knowledge.id == knowledge_id)
                .values(knowledge_base_id=target_kb_id, updated_at=utcnow())
            )
        return True
