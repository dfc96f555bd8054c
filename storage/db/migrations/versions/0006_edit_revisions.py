"""What a summary refresh snapshots and finds: chunks.content_revision (bumped by every
content edit), knowledges.metadata_version (bumped by every metadata change) and
knowledges.summary_stale (a completed summary whose inputs changed since).

Revision ID: 0006
Revises: 0004
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chunks") as batch_op:
        batch_op.add_column(
            sa.Column("content_revision", sa.Integer(), server_default="0", nullable=False)
        )
    with op.batch_alter_table("knowledges") as batch_op:
        batch_op.add_column(
            sa.Column("metadata_version", sa.Integer(), server_default="0", nullable=False)
        )
        batch_op.add_column(
            sa.Column("summary_stale", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("knowledges") as batch_op:
        batch_op.drop_column("summary_stale")
        batch_op.drop_column("metadata_version")
    with op.batch_alter_table("chunks") as batch_op:
        batch_op.drop_column("content_revision")
