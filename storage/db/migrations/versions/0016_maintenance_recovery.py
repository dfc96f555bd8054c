"""Recovery of killed maintenance jobs (issue 15): each FAQ import, knowledge move and KB
clone counts the times housekeeping queued it again after its worker died
(``recoveries``, bounded by its attempt budget); an import and a move keep the payload they
were queued with (``task_payload``), so a lost task can be queued again as it was.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
_TABLES = ("faq_import_jobs", "knowledge_move_jobs", "kb_clone_jobs")
_WITH_PAYLOAD = ("faq_import_jobs", "knowledge_move_jobs")


def upgrade() -> None:
    for table in _TABLES:
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(
                sa.Column("recoveries", sa.Integer(), server_default="0", nullable=False)
            )
            if table in _WITH_PAYLOAD:
                batch_op.add_column(sa.Column("task_payload", _JSON, nullable=True))


def downgrade() -> None:
    for table in _TABLES:
        with op.batch_alter_table(table) as batch_op:
            if table in _WITH_PAYLOAD:
                batch_op.drop_column("task_payload")
            batch_op.drop_column("recoveries")
