"""Chunks: the pieces of a knowledge that are indexed and searched."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from core.statuses import ChunkType
from storage.db.models.base import Base, new_id, utcnow


class Chunk(Base):
    __tablename__ = "chunks"
    __table_args__ = (
        # A retried or raced write can never store the same chunk twice.
        UniqueConstraint("knowledge_id", "chunk_type", "chunk_index"),
        Index(None, "knowledge_base_id", "content_hash"),
        Index(None, "parent_chunk_id"),
        Index(None, "knowledge_base_id", "tag_id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(String(36))
    knowledge_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledges.id", ondelete="CASCADE")
    )
    # The processing round that wrote this chunk.
    attempt: Mapped[int] = mapped_column(default=0)
    chunk_index: Mapped[int]
    chunk_type: Mapped[str] = mapped_column(String(32), default=ChunkType.TEXT)
    content: Mapped[str] = mapped_column(Text, default="")
    # Bumped by every edit of ``content`` (UpdateChunk): a summary refresh snapshots it and
    # drops its result when it moved meanwhile.
    content_revision: Mapped[int] = mapped_column(default=0, server_default="0")
    # Heading breadcrumbs; indexed with the content, not returned by the API.
    context_header: Mapped[str] = mapped_column(Text, default="")
    # Offsets in code points of the parsed Markdown.
    start_at: Mapped[int] = mapped_column(default=0)
    end_at: Mapped[int] = mapped_column(default=0)
    parent_chunk_id: Mapped[str | None] = mapped_column(String(36), default=None)
    pre_chunk_id: Mapped[str | None] = mapped_column(String(36), default=None)
    next_chunk_id: Mapped[str | None] = mapped_column(String(36), default=None)
    is_enabled: Mapped[bool] = mapped_column(default=True)
    image_info: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    meta: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)
    # Normalised-content hash (FAQ dedup and clone diffs).
    content_hash: Mapped[str] = mapped_column(String(64), default="")
    # An FAQ entry's tag (a tag of its knowledge base); None for every other chunk.
    tag_id: Mapped[str | None] = mapped_column(String(36), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class FaqQuestion(Base):
    """One normalised question of an FAQ entry (its chunk): what a duplicate check looks up,
    and, for the standard and similar ones, what the database keeps unique per knowledge
    base (so two racing writes cannot both store the same question)."""

    __tablename__ = "faq_questions"
    __table_args__ = (
        Index(None, "knowledge_base_id", "text"),
        Index(
            "uq_faq_questions_asked",
            "knowledge_base_id",
            "text",
            unique=True,
            postgresql_where=text("kind <> 'negative'"),
            sqlite_where=text("kind <> 'negative'"),
        ),
    )

    chunk_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("chunks.id", ondelete="CASCADE"), primary_key=True
    )
    knowledge_base_id: Mapped[str] = mapped_column(String(36))
    # core.faq_entry.QuestionKind: standard, similar or negative.
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    text: Mapped[str] = mapped_column(Text, primary_key=True)
