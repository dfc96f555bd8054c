"""FAQ entries: an FAQ knowledge base's one knowledge of type faq (a partial unique index, so
two concurrent first uses cannot create two), an entry's tag (chunks.tag_id, filterable) and
the normalised questions of every entry (faq_questions), so a duplicate standard or similar
question is found by an index lookup and refused by the database when two writes race.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ONE_FAQ = sa.text("type = 'faq'")
_NOT_NEGATIVE = sa.text("kind <> 'negative'")


def upgrade() -> None:
    op.create_index(
        "uq_knowledges_one_faq_knowledge",
        "knowledges",
        ["knowledge_base_id"],
        unique=True,
        postgresql_where=_ONE_FAQ,
        sqlite_where=_ONE_FAQ,
    )
    with op.batch_alter_table("chunks") as batch:
        batch.add_column(sa.Column("tag_id", sa.String(length=36), nullable=True))
        batch.create_index(
            batch.f("ix_chunks_knowledge_base_id_tag_id"), ["knowledge_base_id", "tag_id"]
        )
    op.create_table(
        "faq_questions",
        sa.Column("chunk_id", sa.String(length=36), nullable=False),
        sa.Column("knowledge_base_id", sa.String(length=36), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chunk_id"],
            ["chunks.id"],
            name=op.f("fk_faq_questions_chunk_id_chunks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("chunk_id", "kind", "text", name=op.f("pk_faq_questions")),
    )
    op.create_index(
        op.f("ix_faq_questions_knowledge_base_id_text"),
        "faq_questions",
        ["knowledge_base_id", "text"],
    )
    op.create_index(
        "uq_faq_questions_asked",
        "faq_questions",
        ["knowledge_base_id", "text"],
        unique=True,
        postgresql_where=_NOT_NEGATIVE,
        sqlite_where=_NOT_NEGATIVE,
    )


def downgrade() -> None:
    op.drop_index("uq_faq_questions_asked", table_name="faq_questions")
    op.drop_index(op.f("ix_faq_questions_knowledge_base_id_text"), table_name="faq_questions")
    op.drop_table("faq_questions")
    with op.batch_alter_table("chunks") as batch:
        batch.drop_index(batch.f("ix_chunks_knowledge_base_id_tag_id"))
        batch.drop_column("tag_id")
    op.drop_index("uq_knowledges_one_faq_knowledge", table_name="knowledges")
