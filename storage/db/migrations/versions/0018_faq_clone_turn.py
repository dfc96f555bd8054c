"""An FAQ clone job's turn: the part of its task chain that may run its batches now
(``faq_part``) and the run of that part that holds the turn (``faq_runner``), so the retry
of a part that handed on and the next part never work on the same batch at once.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("kb_clone_jobs") as batch_op:
        batch_op.add_column(sa.Column("faq_part", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("faq_runner", sa.String(36), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("kb_clone_jobs") as batch_op:
        batch_op.drop_column("faq_runner")
        batch_op.drop_column("faq_part")
