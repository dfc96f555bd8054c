"""Knowledge bases and their tags."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from core.statuses import KnowledgeBaseType
from storage.db.models.base import Base, new_id, utcnow


class KnowledgeBase(Base):
    __tablename__ = "knowledge_bases"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36), ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str] = mapped_column(Text, default="")
    type: Mapped[str] = mapped_column(String(16), default=KnowledgeBaseType.DOCUMENT)
    # The KnowledgeBaseConfig message as a dict (proto JSON field names).
    config: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # Identity of the embedding model, e.g. "local/all-MiniLM-L6-v2/384": knowledge bases
    # with equal keys share an index collection, so moves between them reuse vectors.
    embedding_model_key: Mapped[str] = mapped_column(String(255), default="")
    storage_backend_id: Mapped[str] = mapped_column(String(64), default="")
    # The generated profile (kb:profile): a description of what its documents cover, the
    # sha256 of the documents' titles and summaries it was written from (the same aggregate
    # is never sent to the model again), and when it was written.
    profile_description: Mapped[str] = mapped_column(Text, default="", server_default="")
    profile_hash: Mapped[str] = mapped_column(String(64), default="", server_default="")
    profile_generated_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Tag(Base):
    __tablename__ = "tags"
    __table_args__ = (UniqueConstraint("knowledge_base_id", "name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    name: Mapped[str] = mapped_column(String(255))
    color: Mapped[str] = mapped_column(String(32), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class KnowledgeTag(Base):
    __tablename__ = "knowledge_tags"
    __table_args__ = (Index(None, "tag_id"),)

    knowledge_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledges.id", ondelete="CASCADE"), primary_key=True
    )
    tag_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("tags.id", ondelete="CASCADE"), primary_key=True
    )
