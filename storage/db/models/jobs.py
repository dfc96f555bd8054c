"""Long-running maintenance jobs whose progress clients poll."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from core.statuses import JobStatus
from storage.db.models.base import Base, new_id, utcnow


class FaqImportJob(Base):
    __tablename__ = "faq_import_jobs"

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
    succeeded: Mapped[int] = mapped_column(default=0)
    failed: Mapped[int] = mapped_column(default=0)
    partial: Mapped[int] = mapped_column(default=0)
    skipped: Mapped[int] = mapped_column(default=0)
    # FileService path of the CSV of failed rows, once written.
    failed_rows_path: Mapped[str] = mapped_column(Text, default="")
    error_message: Mapped[str | None] = mapped_column(Text, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class KbCloneJob(Base):
    """Knowledge base ids are not foreign keys: the record outlives either knowledge base."""

    __tablename__ = "kb_clone_jobs"

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
