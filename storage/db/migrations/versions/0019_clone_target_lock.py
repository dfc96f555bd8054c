"""The target's clone lock: a partial unique index allowing one pending or processing clone
per target knowledge base (until now only checked before the insert, so two calls racing
could both start one). Open clones already doubled up on a target keep the earliest; the
others are failed first, saying why, or the index could not be built.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OPEN = "status IN ('pending', 'processing')"
_INDEX = "uq_kb_clone_jobs_open_target"


def upgrade() -> None:
    op.execute(
        sa.text(
            "UPDATE kb_clone_jobs SET status = 'failed', finished_at = CURRENT_TIMESTAMP, "
            "error_message = 'another clone into the same knowledge base was running' "
            f"WHERE {_OPEN} AND EXISTS (SELECT 1 FROM kb_clone_jobs AS earlier "
            "WHERE earlier.target_knowledge_base_id = kb_clone_jobs.target_knowledge_base_id "
            f"AND earlier.{_OPEN} "
            "AND (earlier.created_at < kb_clone_jobs.created_at "
            "OR (earlier.created_at = kb_clone_jobs.created_at AND earlier.id < kb_clone_jobs.id)))"
        )
    )
    op.create_index(
        _INDEX,
        "kb_clone_jobs",
        ["target_knowledge_base_id"],
        unique=True,
        postgresql_where=sa.text(_OPEN),
        sqlite_where=sa.text(_OPEN),
    )


def downgrade() -> None:
    op.drop_index(_INDEX, table_name="kb_clone_jobs")
