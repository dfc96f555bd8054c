"""Knowledge moves (issue 15): knowledge_move_jobs, one row per MoveKnowledge job with its
progress (counts, per-knowledge failures) and why it failed.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "knowledge_move_jobs",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=36), nullable=False),
        sa.Column("source_knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("target_knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("knowledge_ids", _JSON, nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.Column("failures", _JSON, nullable=False),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_move_jobs")),
    )
    op.create_index(op.f("ix_knowledge_move_jobs_tenant_id"), "knowledge_move_jobs", ["tenant_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_knowledge_move_jobs_tenant_id"), table_name="knowledge_move_jobs")
    op.drop_table("knowledge_move_jobs")
