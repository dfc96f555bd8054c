"""Processing spans: the per-attempt progress tree of a knowledge (the source of truth)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from core.statuses import SpanKind, SpanStatus, Stage
from storage.db.models.base import Base, new_id, utcnow


class Span(Base):
    __tablename__ = "knowledge_processing_spans"
    __table_args__ = (UniqueConstraint("knowledge_id", "attempt", "name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledges.id", ondelete="CASCADE")
    )
    attempt: Mapped[int]
    parent_id: Mapped[str | None] = mapped_column(String(36), default=None)
    # "knowledge_processing", a stage ("docreader"…) or a step ("postprocess.summary").
    name: Mapped[str] = mapped_column(String(128))
    kind: Mapped[str] = mapped_column(String(16), default=SpanKind.STAGE)
    stage: Mapped[str] = mapped_column(String(16), default=Stage.NONE)
    status: Mapped[str] = mapped_column(String(16), default=SpanStatus.PENDING)
    input: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    output: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    error_code: Mapped[str | None] = mapped_column(String(64), default=None)
    error_message: Mapped[str | None] = mapped_column(Text, default=None)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    ended_at: Mapped[datetime | None] = mapped_column(default=None)
    duration_ms: Mapped[int | None] = mapped_column(BigInteger, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The heartbeat: the last time this span reported progress.
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The knowledge's span_sequence given to this span's latest change (see Knowledge).
    sequence: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
