"""The wiki: per-knowledge page sources (to rebuild a page without one knowledge), links
between pages, claims on pending operations, tombstones of deleted knowledges and the per-KB
time housekeeping last re-triggered the wiki ingest.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "wiki_page_sources",
        sa.Column("page_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("contribution", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["page_id"],
            ["wiki_pages.id"],
            name=op.f("fk_wiki_page_sources_page_id_wiki_pages"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("page_id", "knowledge_id", name=op.f("pk_wiki_page_sources")),
    )
    op.create_index(
        op.f("ix_wiki_page_sources_knowledge_id"), "wiki_page_sources", ["knowledge_id"]
    )
    op.create_index(
        op.f("ix_wiki_page_sources_knowledge_base_id"),
        "wiki_page_sources",
        ["knowledge_base_id"],
    )
    op.create_table(
        "wiki_page_links",
        sa.Column("page_id", sa.String(length=36), nullable=False),
        sa.Column("target_slug", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(
            ["page_id"],
            ["wiki_pages.id"],
            name=op.f("fk_wiki_page_links_page_id_wiki_pages"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("page_id", "target_slug", name=op.f("pk_wiki_page_links")),
    )
    with op.batch_alter_table("wiki_pending_ops") as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "wiki_tombstones",
        sa.Column("knowledge_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["knowledge_base_id"],
            ["knowledge_bases.id"],
            name=op.f("fk_wiki_tombstones_knowledge_base_id_knowledge_bases"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("knowledge_id", name=op.f("pk_wiki_tombstones")),
    )
    op.create_index(
        op.f("ix_wiki_tombstones_knowledge_base_id"), "wiki_tombstones", ["knowledge_base_id"]
    )
    op.create_table(
        "wiki_kb_triggers",
        sa.Column("knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("triggered_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["knowledge_base_id"],
            ["knowledge_bases.id"],
            name=op.f("fk_wiki_kb_triggers_knowledge_base_id_knowledge_bases"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("knowledge_base_id", name=op.f("pk_wiki_kb_triggers")),
    )


def downgrade() -> None:
    op.drop_table("wiki_kb_triggers")
    op.drop_index(op.f("ix_wiki_tombstones_knowledge_base_id"), table_name="wiki_tombstones")
    op.drop_table("wiki_tombstones")
    with op.batch_alter_table("wiki_pending_ops") as batch_op:
        batch_op.drop_column("claimed_at")
        batch_op.drop_column("claimed_by")
    op.drop_table("wiki_page_links")
    op.drop_index(
        op.f("ix_wiki_page_sources_knowledge_base_id"), table_name="wiki_page_sources"
    )
    op.drop_index(op.f("ix_wiki_page_sources_knowledge_id"), table_name="wiki_page_sources")
    op.drop_table("wiki_page_sources")
