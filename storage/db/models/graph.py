"""The knowledge graph (storage/graph): entities merged per knowledge base, the chunks that
mention them, relations between them and the chunks each relation was found in.

Mentions and relation sources carry the knowledge and attempt that wrote them, so a round's
contribution is removed exactly; entities and relations themselves belong to the knowledge
base and live while something still mentions them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.db.models.base import Base, new_id, utcnow

ENTITY_NAME_MAX_CHARS = 512
ENTITY_TYPE_MAX_CHARS = 128
RELATION_TYPE_MAX_CHARS = 255


class GraphEntity(Base):
    __tablename__ = "graph_entities"
    __table_args__ = (
        # The merge key: one entity per knowledge base, normalised name and type.
        UniqueConstraint("knowledge_base_id", "normalized_name", "type"),
        Index(None, "knowledge_base_id", "type"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    normalized_name: Mapped[str] = mapped_column(String(ENTITY_NAME_MAX_CHARS))
    type: Mapped[str] = mapped_column(String(ENTITY_TYPE_MAX_CHARS), default="")
    # As the first chunk that found it spelled it.
    name: Mapped[str] = mapped_column(String(ENTITY_NAME_MAX_CHARS))
    # The first non-empty description found; each mention keeps its own.
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class GraphMention(Base):
    """A chunk that mentions an entity."""

    __tablename__ = "graph_mentions"
    __table_args__ = (
        UniqueConstraint("entity_id", "chunk_id"),
        Index(None, "chunk_id"),
        Index(None, "knowledge_id", "attempt"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    entity_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("graph_entities.id", ondelete="CASCADE")
    )
    knowledge_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledges.id", ondelete="CASCADE")
    )
    attempt: Mapped[int]
    chunk_id: Mapped[str] = mapped_column(String(36))
    description: Mapped[str] = mapped_column(Text, default="")


class GraphRelation(Base):
    __tablename__ = "graph_relations"
    __table_args__ = (
        # One relation per ordered pair and type (the entities fix the knowledge base); it
        # also serves the walk out of an entity, as the index below serves the walk in.
        UniqueConstraint("source_entity_id", "target_entity_id", "relation"),
        Index(None, "target_entity_id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    source_entity_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("graph_entities.id", ondelete="CASCADE")
    )
    target_entity_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("graph_entities.id", ondelete="CASCADE")
    )
    relation: Mapped[str] = mapped_column(String(RELATION_TYPE_MAX_CHARS))
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class GraphRelationSource(Base):
    """A chunk a relation was found in."""

    __tablename__ = "graph_relation_sources"
    __table_args__ = (
        UniqueConstraint("relation_id", "chunk_id"),
        Index(None, "chunk_id"),
        Index(None, "knowledge_id", "attempt"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    relation_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("graph_relations.id", ondelete="CASCADE")
    )
    knowledge_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledges.id", ondelete="CASCADE")
    )
    attempt: Mapped[int]
    chunk_id: Mapped[str] = mapped_column(String(36))
    description: Mapped[str] = mapped_column(Text, default="")
    weight: Mapped[float] = mapped_column(Float, default=1.0)
