"""The knowledge base's generated profile (kb:profile): knowledge_bases.profile_description,
profile_hash (sha256 of the aggregate it was written from) and profile_generated_at.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("knowledge_bases") as batch_op:
        batch_op.add_column(
            sa.Column("profile_description", sa.Text(), server_default="", nullable=False)
        )
        batch_op.add_column(
            sa.Column("profile_hash", sa.String(length=64), server_default="", nullable=False)
        )
        batch_op.add_column(
            sa.Column("profile_generated_at", sa.DateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("knowledge_bases") as batch_op:
        batch_op.drop_column("profile_generated_at")
        batch_op.drop_column("profile_hash")
        batch_op.drop_column("profile_description")
