"""What a summary refresh needs beyond 0006: knowledges.summary_refresh_seq (the sequence
in a refresh task's job id: a refresh that begins bumps it, so an edit landing while it
runs queues one more instead of being deduplicated against it) and
knowledges.summary_error (why the latest summary failed; the last written summary stays).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("knowledges") as batch_op:
        batch_op.add_column(
            sa.Column("summary_refresh_seq", sa.Integer(), server_default="0", nullable=False)
        )
        batch_op.add_column(sa.Column("summary_error", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("knowledges") as batch_op:
        batch_op.drop_column("summary_error")
        batch_op.drop_column("summary_refresh_seq")
