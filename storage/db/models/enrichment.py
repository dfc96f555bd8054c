"""What enrichment derives from knowledges: the knowledge graph and wiki pages."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.db.models.base import Base, new_id, utcnow


class GraphNode(Base):
    __tablename__ = "graph_nodes"
    __table_args__ = (Index(None, "knowledge_base_id", "name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    knowledge_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledges.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(512))
    type: Mapped[str] = mapped_column(String(128), default="")
    description: Mapped[str] = mapped_column(Text, default="")
    # The chunks the entity was extracted from.
    chunk_ids: Mapped[list[str]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class GraphEdge(Base):
    __tablename__ = "graph_edges"
    __table_args__ = (
        Index(None, "knowledge_base_id", "source"),
        Index(None, "knowledge_base_id", "target"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    knowledge_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledges.id", ondelete="CASCADE"), index=True
    )
    # Entity names of the two ends.
    source: Mapped[str] = mapped_column(String(512))
    target: Mapped[str] = mapped_column(String(512))
    relation: Mapped[str] = mapped_column(String(255), default="")
    weight: Mapped[float] = mapped_column(Float, default=1.0)
    description: Mapped[str] = mapped_column(Text, default="")
    chunk_ids: Mapped[list[str]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class WikiPage(Base):
    __tablename__ = "wiki_pages"
    __table_args__ = (UniqueConstraint("knowledge_base_id", "slug"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    slug: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(1024), default="")
    content: Mapped[str] = mapped_column(Text, default="")
    source_knowledge_ids: Mapped[list[str]] = mapped_column(default=list)
    version: Mapped[int] = mapped_column(default=1)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class WikiPendingOp(Base):
    """An ingest or retract of one knowledge, waiting for the debounced wiki task.

    ``knowledge_id`` is deliberately not a foreign key: a retract must outlive the row.
    """

    __tablename__ = "wiki_pending_ops"
    __table_args__ = (Index(None, "knowledge_base_id", "created_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    knowledge_id: Mapped[str] = mapped_column(String(36), index=True)
    op: Mapped[str] = mapped_column(String(16))
    # The knowledge's attempt when the op was queued; a newer attempt supersedes it.
    attempt: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
