"""Knowledge moves between knowledge bases (MoveKnowledge): one row per job, its progress
read by GetMoveProgress and watched by WatchMoveProgress."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from core.statuses import JobStatus
from storage.db.models.base import Base, new_id, utcnow


class KnowledgeMoveJob(Base):
    """Knowledge base ids are not foreign keys: the record outlives either knowledge base."""

    __tablename__ = "knowledge_move_jobs"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36), index=True)
    source_knowledge_base_id: Mapped[str] = mapped_column(String(36))
    target_knowledge_base_id: Mapped[str] = mapped_column(String(36))
    # "reuse_vectors" or "reparse" (core.move_modes.MoveMode), decided when the job is made.
    mode: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.PENDING)
    # The knowledges asked for, in order; total is their number.
    knowledge_ids: Mapped[list[str]] = mapped_column(default=list)
    total: Mapped[int] = mapped_column(default=0)
    done: Mapped[int] = mapped_column(default=0)
    failed: Mapped[int] = mapped_column(default=0)
    # Why each failed knowledge was not moved, by knowledge id.
    failures: Mapped[dict[str, Any]] = mapped_column(default=dict)
    error_message: Mapped[str | None] = mapped_column(Text, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    # Times housekeeping queued the job again after its worker died, and the payload it
    # queues then: the one the API queued (it holds each knowledge's attempt at the time).
    recoveries: Mapped[int] = mapped_column(default=0, server_default="0")
    task_payload: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    # Attempts of its task that started, retried or requeued: they share one budget.
    attempts: Mapped[int] = mapped_column(default=0, server_default="0")
