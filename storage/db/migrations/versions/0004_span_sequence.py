"""Span change sequence numbers: knowledges.span_sequence (the last one handed out) and
knowledge_processing_spans.sequence (the one of the span's latest change).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0004'
down_revision: str | Sequence[str] | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('knowledges') as batch_op:
        batch_op.add_column(
            sa.Column('span_sequence', sa.BigInteger(), server_default='0', nullable=False)
        )
    with op.batch_alter_table('knowledge_processing_spans') as batch_op:
        batch_op.add_column(
            sa.Column('sequence', sa.BigInteger(), server_default='0', nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table('knowledge_processing_spans') as batch_op:
        batch_op.drop_column('sequence')
    with op.batch_alter_table('knowledges') as batch_op:
        batch_op.drop_column('span_sequence')
