"""subtask_ends: the post-processing subtasks of a round that have ended, so each one
(a question batch, retried or dead-lettered) counts the round's subtasks down once.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "subtask_ends",
        sa.Column("knowledge_id", sa.String(length=36), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("subtask_index", sa.Integer(), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["knowledge_id"],
            ["knowledges.id"],
            name=op.f("fk_subtask_ends_knowledge_id_knowledges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "knowledge_id", "attempt", "kind", "subtask_index", name=op.f("pk_subtask_ends")
        ),
    )


def downgrade() -> None:
    op.drop_table("subtask_ends")
