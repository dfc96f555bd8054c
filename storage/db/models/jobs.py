"""Long-running maintenance jobs whose progress clients poll."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from core.statuses import JobStatus
from storage.db.models.base import Base, JSONType, new_id, utcnow

# The statuses of a job that holds its lock (an import's knowledge base, a clone's target).
OPEN_JOB_SQL = "status IN ('pending', 'processing')"


class FaqImportJob(Base):
    """One import into an FAQ knowledge base. The partial unique index is its lock: at most
    one pending or processing import per knowledge base, held by the database itself, so it
    works alike in lite mode (no Redis) and full mode, and a crashed API or worker cannot
    leave it behind (the row ends failed or completed, which releases it)."""

    __tablename__ = "faq_import_jobs"
    __table_args__ = (
        Index(
            "uq_faq_import_jobs_active_knowledge_base",
            "knowledge_base_id",
            unique=True,
            postgresql_where=text(OPEN_JOB_SQL),
            sqlite_where=text(OPEN_JOB_SQL),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE"), index=True
    )
    # "append" or "replace".
    mode: Mapped[str] = mapped_column(String(16), default="append")
    dry_run: Mapped[bool] = mapped_column(default=False)
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.PENDING)
    total: Mapped[int] = mapped_column(default=0)
    # Rows looked at so far, in file order: where a retried attempt resumes.
    processed: Mapped[int] = mapped_column(default=0)
    succeeded: Mapped[int] = mapped_column(default=0)
    failed: Mapped[int] = mapped_column(default=0)
    partial: Mapped[int] = mapped_column(default=0)
    skipped: Mapped[int] = mapped_column(default=0)
    # Entries a replace deleted (a dry run: would delete).
    deleted: Mapped[int] = mapped_column(default=0)
    # FileService path of the rows to import when they were too many for the task payload
    # ("" = they are in the payload); deleted once the job ends.
    source_path: Mapped[str] = mapped_column(Text, default="")
    # The entry writes of the batch last counted, until they are all done: a retry after a
    # crash between the two does them again (each is idempotent) instead of counting again.
    pending_writes: Mapped[list[dict[str, Any]] | None] = mapped_column(JSONType, default=None)
    error_message: Mapped[str | None] = mapped_column(Text, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    # Times housekeeping queued the job again after its worker died (workers.housekeeping
    # .maintenance), and the payload it queues then: the one the API queued.
    recoveries: Mapped[int] = mapped_column(default=0, server_default="0")
    task_payload: Mapped[dict[str, Any] | None] = mapped_column(JSONType, default=None)
    # Attempts of its task that started, retried or requeued: they share one budget.
    attempts: Mapped[int] = mapped_column(default=0, server_default="0")


class FaqImportRow(Base):
    """What one row of an import came to, written with the job's counters in one
    transaction: the failed and partially failed rows are what ExportFAQImportFailures
    gives; ``entry_id`` (the entry the row wrote, merged into or matched) is what a replace
    keeps when it deletes the rest."""

    __tablename__ = "faq_import_rows"

    job_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("faq_import_jobs.id", ondelete="CASCADE"), primary_key=True
    )
    # 1-based, as the file numbers it (the header row of a CSV or XLSX is row 1).
    row_number: Mapped[int] = mapped_column(primary_key=True)
    # succeeded, failed, partial or skipped.
    outcome: Mapped[str] = mapped_column(String(16))
    standard_question: Mapped[str] = mapped_column(Text, default="")
    reason: Mapped[str] = mapped_column(Text, default="")
    # The row as it was read (column name -> cell text), for the failure CSV.
    columns: Mapped[dict[str, str]] = mapped_column(JSONType, default=dict)
    entry_id: Mapped[str | None] = mapped_column(String(36), default=None)


class KbCloneJob(Base):
    """Knowledge base ids are not foreign keys: the record outlives either knowledge base.
    The partial unique index is the target's clone lock: at most one pending or processing
    clone into a knowledge base, so two calls racing cannot both start one (two clones
    writing one target would each take the other's clones for its own)."""

    __tablename__ = "kb_clone_jobs"
    __table_args__ = (
        Index(
            "uq_kb_clone_jobs_open_target",
            "target_knowledge_base_id",
            unique=True,
            postgresql_where=text(OPEN_JOB_SQL),
            sqlite_where=text(OPEN_JOB_SQL),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36), index=True)
    source_knowledge_base_id: Mapped[str] = mapped_column(String(36))
    target_knowledge_base_id: Mapped[str] = mapped_column(String(36))
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.PENDING)
    total: Mapped[int] = mapped_column(BigInteger, default=0)
    done: Mapped[int] = mapped_column(BigInteger, default=0)
    error_message: Mapped[str | None] = mapped_column(Text, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    # Knowledges still processing in the source when the job planned: not cloned this time.
    skipped: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    failed: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    added: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    removed: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # What the plan decided (workers.clone.plan): {"clone": [source knowledge ids],
    # "delete": [[target knowledge ids], ...]}, so a retried plan queues the same items.
    plan: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    # Times housekeeping queued the job's missing tasks again after a worker died.
    recoveries: Mapped[int] = mapped_column(default=0, server_default="0")
    # Attempts of its plan task that started, retried or requeued: they share one budget.
    attempts: Mapped[int] = mapped_column(default=0, server_default="0")
    # An FAQ clone's turn (storage.db.repositories.faq_clone_turns): the part of its task
    # chain that may run batches, and the run of that part holding the turn.
    faq_part: Mapped[int] = mapped_column(default=0, server_default="0")
    faq_runner: Mapped[str | None] = mapped_column(String(36), default=None)


class KbCloneItem(Base):
    """One ended item of a clone job (a knowledge cloned, or a batch of deletions): written
    once, so a task retried after it ended, or whose dead letter runs after a try ended it,
    counts once."""

    __tablename__ = "kb_clone_items"

    job_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("kb_clone_jobs.id", ondelete="CASCADE"), primary_key=True
    )
    # "clone:{source knowledge id}" or "delete:{batch index}".
    item: Mapped[str] = mapped_column(String(80), primary_key=True)
    # How many knowledges it stands for (a deletion batch: up to 10).
    count: Mapped[int] = mapped_column(default=1)
    # Empty when it succeeded; else why its last attempt failed.
    error: Mapped[str] = mapped_column(Text, default="")
    ended_at: Mapped[datetime] = mapped_column(default=utcnow)
