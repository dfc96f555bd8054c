"""FAQ imports: the import lock (at most one pending or processing import per knowledge
base, a partial unique index), the job's resume point and stored rows, and the outcome of
each row (faq_import_rows: what the failure CSV and a replace's deletions are read from).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from storage.db.models.base import JSONType

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ACTIVE = "status IN ('pending', 'processing')"


def upgrade() -> None:
    with op.batch_alter_table("faq_import_jobs") as batch:
        batch.drop_column("failed_rows_path")
        batch.add_column(sa.Column("processed", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("deleted", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("source_path", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("pending_writes", JSONType, nullable=True))
    with op.batch_alter_table("faq_import_jobs") as batch:
        batch.alter_column("processed", server_default=None)
        batch.alter_column("deleted", server_default=None)
        batch.alter_column("source_path", server_default=None)
    op.create_index(
        "uq_faq_import_jobs_active_knowledge_base",
        "faq_import_jobs",
        ["knowledge_base_id"],
        unique=True,
        postgresql_where=sa.text(_ACTIVE),
        sqlite_where=sa.text(_ACTIVE),
    )
    op.create_table(
        "faq_import_rows",
        sa.Column("job_id", sa.String(length=36), nullable=False),
        sa.Column("row_number", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("standard_question", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("columns", JSONType, nullable=False),
        sa.Column("entry_id", sa.String(length=36), nullable=True),
        sa.ForeignKeyConstraint(
            ["job_id"],
            ["faq_import_jobs.id"],
            name=op.f("fk_faq_import_rows_job_id_faq_import_jobs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("job_id", "row_number", name=op.f("pk_faq_import_rows")),
    )


def downgrade() -> None:
    op.drop_table("faq_import_rows")
    op.drop_index("uq_faq_import_jobs_active_knowledge_base", table_name="faq_import_jobs")
    with op.batch_alter_table("faq_import_jobs") as batch:
        batch.drop_column("pending_writes")
        batch.drop_column("source_path")
        batch.drop_column("deleted")
        batch.drop_column("processed")
        batch.add_column(
            sa.Column("failed_rows_path", sa.Text(), nullable=False, server_default="")
        )
