"""index_checkpoints: how far each round's indexing got, so a retried round resumes.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003'
down_revision: str | Sequence[str] | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('index_checkpoints',
    sa.Column('knowledge_id', sa.String(length=36), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('chunk_count', sa.Integer(), nullable=False),
    sa.Column('indexed_count', sa.Integer(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['knowledge_id'], ['knowledges.id'],
                            name=op.f('fk_index_checkpoints_knowledge_id_knowledges'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('knowledge_id', name=op.f('pk_index_checkpoints'))
    )


def downgrade() -> None:
    op.drop_table('index_checkpoints')
