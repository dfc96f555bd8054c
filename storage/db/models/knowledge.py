"""A document in a knowledge base (``knowledges``), with its processing state machine."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, String, Text, false, text
from sqlalchemy.orm import Mapped, mapped_column

from core.statuses import EnableStatus, KnowledgeType, ParseStatus, SummaryStatus
from storage.db.models.base import Base, new_id, utcnow

# Column widths the API checks before a row is written (a longer value is a database error).
TITLE_MAX_CHARS = 1024
CHANNEL_MAX_CHARS = 64


class Knowledge(Base):
    __tablename__ = "knowledges"
    __table_args__ = (
        Index(None, "tenant_id", "knowledge_base_id", "file_hash"),
        Index(None, "knowledge_base_id", "parse_status"),
        Index(None, "parse_status", "updated_at"),
        # An FAQ knowledge base has exactly one knowledge of type faq, even when two first
        # uses race (the loser's insert fails and it reads the winner's).
        Index(
            "uq_knowledges_one_faq_knowledge",
            "knowledge_base_id",
            unique=True,
            postgresql_where=text("type = 'faq'"),
            sqlite_where=text("type = 'faq'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    type: Mapped[str] = mapped_column(String(16), default=KnowledgeType.FILE)
    title: Mapped[str] = mapped_column(String(TITLE_MAX_CHARS), default="")
    description: Mapped[str] = mapped_column(Text, default="")
    # The URL a URL knowledge was imported from.
    source: Mapped[str] = mapped_column(Text, default="")
    file_name: Mapped[str] = mapped_column(String(1024), default="")
    # Lower-case extension without the dot.
    file_type: Mapped[str] = mapped_column(String(32), default="")
    file_size: Mapped[int] = mapped_column(BigInteger, default=0)
    # MD5 hex of the file's bytes.
    file_hash: Mapped[str] = mapped_column(String(64), default="")
    # FileService path of the original ("local://…", "storage://…", "resource://…").
    file_path: Mapped[str] = mapped_column(Text, default="")
    # Bytes this knowledge occupies in storage (original plus extracted images).
    storage_size: Mapped[int] = mapped_column(BigInteger, default=0)
    # Markdown of a manual knowledge.
    content: Mapped[str | None] = mapped_column(Text, default=None)
    parse_status: Mapped[str] = mapped_column(String(16), default=ParseStatus.PENDING)
    enable_status: Mapped[str] = mapped_column(String(16), default=EnableStatus.DISABLED)
    summary_status: Mapped[str] = mapped_column(String(16), default=SummaryStatus.NONE)
    summary: Mapped[str | None] = mapped_column(Text, default=None)
    # The summary held is out of date: an input (a text chunk's content or enabled flag,
    # the metadata) changed since it was written; the refresh that edit queued clears the
    # flag when it writes the new one (summary_stale.py).
    summary_stale: Mapped[bool] = mapped_column(default=False, server_default=false())
    # Why the latest summary (first or refresh) failed; cleared when one is written.
    summary_error: Mapped[str | None] = mapped_column(Text, default=None)
    # The sequence in the job id of the next summary refresh (summary_refresh.py): a
    # refresh that begins bumps it, so an edit while it runs queues another one.
    summary_refresh_seq: Mapped[int] = mapped_column(default=0, server_default="0")
    error_message: Mapped[str | None] = mapped_column(Text, default=None)
    meta: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)
    # Bumped by every change of ``meta`` (UpdateKnowledgeMetadata), like a chunk's
    # content_revision.
    metadata_version: Mapped[int] = mapped_column(default=0, server_default="0")
    channel: Mapped[str] = mapped_column(String(CHANNEL_MAX_CHARS), default="")
    # The current processing round; only ever grows (KnowledgeRepository.next_attempt).
    attempt: Mapped[int] = mapped_column(default=0)
    pending_subtasks_count: Mapped[int] = mapped_column(default=0)
    # Rounds housekeeping re-enqueued after they stalled; bounded by max_auto_requeues so a
    # document that keeps killing its worker ends failed instead of looping.
    auto_requeues: Mapped[int] = mapped_column(default=0, server_default="0")
    # The last sequence number handed to a change of one of its spans (any attempt): bumped
    # in the same transaction as the span's write, so sequences follow commit order.
    span_sequence: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # The ProcessConfig given at upload, as a dict; reused by reparse.
    process_overrides: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    enable_multimodel: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Also the row's heartbeat: every guarded transition bumps it.
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    processed_at: Mapped[datetime | None] = mapped_column(default=None)
