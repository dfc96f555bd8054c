"""Knowledge base clones: a cloned knowledge records its source knowledge and round (one
clone per source in a knowledge base), a clone job counts what it added, removed, skipped
and failed and keeps its plan, and each of its ended items is recorded once (kb_clone_items).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
_COUNTS = ("skipped", "failed", "added", "removed")


def upgrade() -> None:
    with op.batch_alter_table("knowledges") as batch_op:
        batch_op.add_column(sa.Column("clone_source_id", sa.String(length=36), nullable=True))
        batch_op.add_column(sa.Column("clone_source_attempt", sa.Integer(), nullable=True))
        batch_op.create_unique_constraint(
            op.f("uq_knowledges_knowledge_base_id_clone_source_id"),
            ["knowledge_base_id", "clone_source_id"],
        )
    with op.batch_alter_table("kb_clone_jobs") as batch_op:
        for name in _COUNTS:
            batch_op.add_column(
                sa.Column(name, sa.BigInteger(), server_default="0", nullable=False)
            )
        batch_op.add_column(sa.Column("plan", _JSON, nullable=True))
    op.create_table(
        "kb_clone_items",
        sa.Column("job_id", sa.String(length=36), nullable=False),
        sa.Column("item", sa.String(length=80), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"],
            ["kb_clone_jobs.id"],
            name=op.f("fk_kb_clone_items_job_id_kb_clone_jobs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("job_id", "item", name=op.f("pk_kb_clone_items")),
    )


def downgrade() -> None:
    op.drop_table("kb_clone_items")
    with op.batch_alter_table("kb_clone_jobs") as batch_op:
        batch_op.drop_column("plan")
        for name in _COUNTS:
            batch_op.drop_column(name)
    with op.batch_alter_table("knowledges") as batch_op:
        batch_op.drop_constraint(
            op.f("uq_knowledges_knowledge_base_id_clone_source_id"), type_="unique"
        )
        batch_op.drop_column("clone_source_attempt")
        batch_op.drop_column("clone_source_id")
