"""The knowledge graph's store: entities merged per knowledge base, their mentions by
chunk, relations and the chunks behind them. graph_nodes and graph_edges (0001) were never
written and go.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index(op.f("ix_graph_edges_knowledge_base_id_source"), table_name="graph_edges")
    op.drop_index(op.f("ix_graph_edges_knowledge_base_id_target"), table_name="graph_edges")
    op.drop_index(op.f("ix_graph_edges_knowledge_id"), table_name="graph_edges")
    op.drop_table("graph_edges")
    op.drop_index(op.f("ix_graph_nodes_knowledge_base_id_name"), table_name="graph_nodes")
    op.drop_index(op.f("ix_graph_nodes_knowledge_id"), table_name="graph_nodes")
    op.drop_table("graph_nodes")

    op.create_table(
        "graph_entities",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("normalized_name", sa.String(length=512), nullable=False),
        sa.Column("type", sa.String(length=128), nullable=False),
        sa.Column("name", sa.String(length=512), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["knowledge_base_id"],
            ["knowledge_bases.id"],
            name=op.f("fk_graph_entities_knowledge_base_id_knowledge_bases"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_entities")),
        sa.UniqueConstraint(
            "knowledge_base_id",
            "normalized_name",
            "type",
            name=op.f("uq_graph_entities_knowledge_base_id_normalized_name_type"),
        ),
    )
    op.create_index(
        op.f("ix_graph_entities_knowledge_base_id_type"),
        "graph_entities",
        ["knowledge_base_id", "type"],
        unique=False,
    )
    op.create_table(
        "graph_mentions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("entity_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_id", sa.String(length=36), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("chunk_id", sa.String(length=36), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["entity_id"],
            ["graph_entities.id"],
            name=op.f("fk_graph_mentions_entity_id_graph_entities"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["knowledge_id"],
            ["knowledges.id"],
            name=op.f("fk_graph_mentions_knowledge_id_knowledges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_mentions")),
        sa.UniqueConstraint(
            "entity_id", "chunk_id", name=op.f("uq_graph_mentions_entity_id_chunk_id")
        ),
    )
    op.create_index(
        op.f("ix_graph_mentions_chunk_id"), "graph_mentions", ["chunk_id"], unique=False
    )
    op.create_index(
        op.f("ix_graph_mentions_knowledge_id_attempt"),
        "graph_mentions",
        ["knowledge_id", "attempt"],
        unique=False,
    )
    op.create_table(
        "graph_relations",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("source_entity_id", sa.String(length=36), nullable=False),
        sa.Column("target_entity_id", sa.String(length=36), nullable=False),
        sa.Column("relation", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["knowledge_base_id"],
            ["knowledge_bases.id"],
            name=op.f("fk_graph_relations_knowledge_base_id_knowledge_bases"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["source_entity_id"],
            ["graph_entities.id"],
            name=op.f("fk_graph_relations_source_entity_id_graph_entities"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["target_entity_id"],
            ["graph_entities.id"],
            name=op.f("fk_graph_relations_target_entity_id_graph_entities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_relations")),
        sa.UniqueConstraint(
            "source_entity_id",
            "target_entity_id",
            "relation",
            name=op.f("uq_graph_relations_source_entity_id_target_entity_id_relation"),
        ),
    )
    op.create_index(
        op.f("ix_graph_relations_target_entity_id"),
        "graph_relations",
        ["target_entity_id"],
        unique=False,
    )
    op.create_table(
        "graph_relation_sources",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("relation_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_id", sa.String(length=36), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("chunk_id", sa.String(length=36), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["knowledge_id"],
            ["knowledges.id"],
            name=op.f("fk_graph_relation_sources_knowledge_id_knowledges"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["relation_id"],
            ["graph_relations.id"],
            name=op.f("fk_graph_relation_sources_relation_id_graph_relations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_relation_sources")),
        sa.UniqueConstraint(
            "relation_id", "chunk_id", name=op.f("uq_graph_relation_sources_relation_id_chunk_id")
        ),
    )
    op.create_index(
        op.f("ix_graph_relation_sources_chunk_id"),
        "graph_relation_sources",
        ["chunk_id"],
        unique=False,
    )
    op.create_index(
        op.f("ix_graph_relation_sources_knowledge_id_attempt"),
        "graph_relation_sources",
        ["knowledge_id", "attempt"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_table("graph_relation_sources")
    op.drop_table("graph_relations")
    op.drop_table("graph_mentions")
    op.drop_table("graph_entities")
    op.create_table(
        "graph_nodes",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=512), nullable=False),
        sa.Column("type", sa.String(length=128), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column(
            "chunk_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["knowledge_base_id"],
            ["knowledge_bases.id"],
            name=op.f("fk_graph_nodes_knowledge_base_id_knowledge_bases"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["knowledge_id"],
            ["knowledges.id"],
            name=op.f("fk_graph_nodes_knowledge_id_knowledges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_nodes")),
    )
    op.create_index(
        op.f("ix_graph_nodes_knowledge_base_id_name"),
        "graph_nodes",
        ["knowledge_base_id", "name"],
        unique=False,
    )
    op.create_index(
        op.f("ix_graph_nodes_knowledge_id"), "graph_nodes", ["knowledge_id"], unique=False
    )
    op.create_table(
        "graph_edges",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_id", sa.String(length=36), nullable=False),
        sa.Column("source", sa.String(length=512), nullable=False),
        sa.Column("target", sa.String(length=512), nullable=False),
        sa.Column("relation", sa.String(length=255), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column(
            "chunk_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["knowledge_base_id"],
            ["knowledge_bases.id"],
            name=op.f("fk_graph_edges_knowledge_base_id_knowledge_bases"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["knowledge_id"],
            ["knowledges.id"],
            name=op.f("fk_graph_edges_knowledge_id_knowledges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_edges")),
    )
    op.create_index(
        op.f("ix_graph_edges_knowledge_base_id_source"),
        "graph_edges",
        ["knowledge_base_id", "source"],
        unique=False,
    )
    op.create_index(
        op.f("ix_graph_edges_knowledge_base_id_target"),
        "graph_edges",
        ["knowledge_base_id", "target"],
        unique=False,
    )
    op.create_index(
        op.f("ix_graph_edges_knowledge_id"), "graph_edges", ["knowledge_id"], unique=False
    )
