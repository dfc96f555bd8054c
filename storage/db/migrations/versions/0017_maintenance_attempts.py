"""Attempts of maintenance jobs: each FAQ import, knowledge move and KB clone counts the
attempts of its task that started (``attempts``), however the earlier ones ended (failed
and retried by the queue, or killed and queued again by housekeeping), so the two kinds of
retry share one budget: the spec's attempts of the task in all.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES = ("faq_import_jobs", "knowledge_move_jobs", "kb_clone_jobs")


def upgrade() -> None:
    for table in _TABLES:
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(
                sa.Column("attempts", sa.Integer(), server_default="0", nullable=False)
            )


def downgrade() -> None:
    for table in _TABLES:
        with op.batch_alter_table(table) as batch_op:
            batch_op.drop_column("attempts")
