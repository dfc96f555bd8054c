"""Initial schema: every table of the Sluice data model.

Revision ID: 0001
Revises: -
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0001'
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('kb_clone_jobs',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('source_knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('target_knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('total', sa.BigInteger(), nullable=False),
    sa.Column('done', sa.BigInteger(), nullable=False),
    sa.Column('error_message', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kb_clone_jobs'))
    )
    op.create_index(op.f('ix_kb_clone_jobs_tenant_id'), 'kb_clone_jobs', ['tenant_id'], unique=False)
    op.create_table('storage_resources',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('backend_id', sa.String(length=64), nullable=False),
    sa.Column('path', sa.Text(), nullable=False),
    sa.Column('owner_type', sa.String(length=32), nullable=False),
    sa.Column('owner_id', sa.String(length=36), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('content_type', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('deleted_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_storage_resources'))
    )
    op.create_index(op.f('ix_storage_resources_owner_type_owner_id'), 'storage_resources', ['owner_type', 'owner_id'], unique=False)
    op.create_index(op.f('ix_storage_resources_tenant_id'), 'storage_resources', ['tenant_id'], unique=False)
    op.create_table('tenants',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tenants'))
    )
    op.create_table('access_grants',
    sa.Column('token', sa.String(length=64), nullable=False),
    sa.Column('resource_id', sa.String(length=36), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['resource_id'], ['storage_resources.id'], name=op.f('fk_access_grants_resource_id_storage_resources'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('token', name=op.f('pk_access_grants'))
    )
    op.create_index(op.f('ix_access_grants_expires_at'), 'access_grants', ['expires_at'], unique=False)
    op.create_index(op.f('ix_access_grants_resource_id'), 'access_grants', ['resource_id'], unique=False)
    op.create_table('api_keys',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('key_hash', sa.String(length=64), nullable=False),
    sa.Column('is_admin', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['tenant_id'], ['tenants.id'], name=op.f('fk_api_keys_tenant_id_tenants'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_keys')),
    sa.UniqueConstraint('key_hash', name=op.f('uq_api_keys_key_hash'))
    )
    op.create_index(op.f('ix_api_keys_tenant_id'), 'api_keys', ['tenant_id'], unique=False)
    op.create_table('knowledge_bases',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('type', sa.String(length=16), nullable=False),
    sa.Column('config', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('embedding_model_key', sa.String(length=255), nullable=False),
    sa.Column('storage_backend_id', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['tenant_id'], ['tenants.id'], name=op.f('fk_knowledge_bases_tenant_id_tenants'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_knowledge_bases')),
    sa.UniqueConstraint('tenant_id', 'name', name=op.f('uq_knowledge_bases_tenant_id_name'))
    )
    op.create_table('faq_import_jobs',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('mode', sa.String(length=16), nullable=False),
    sa.Column('dry_run', sa.Boolean(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('succeeded', sa.Integer(), nullable=False),
    sa.Column('failed', sa.Integer(), nullable=False),
    sa.Column('partial', sa.Integer(), nullable=False),
    sa.Column('skipped', sa.Integer(), nullable=False),
    sa.Column('failed_rows_path', sa.Text(), nullable=False),
    sa.Column('error_message', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['knowledge_base_id'], ['knowledge_bases.id'], name=op.f('fk_faq_import_jobs_knowledge_base_id_knowledge_bases'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_faq_import_jobs'))
    )
    op.create_index(op.f('ix_faq_import_jobs_knowledge_base_id'), 'faq_import_jobs', ['knowledge_base_id'], unique=False)
    op.create_table('knowledges',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('type', sa.String(length=16), nullable=False),
    sa.Column('title', sa.String(length=1024), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('source', sa.Text(), nullable=False),
    sa.Column('file_name', sa.String(length=1024), nullable=False),
    sa.Column('file_type', sa.String(length=32), nullable=False),
    sa.Column('file_size', sa.BigInteger(), nullable=False),
    sa.Column('file_hash', sa.String(length=64), nullable=False),
    sa.Column('file_path', sa.Text(), nullable=False),
    sa.Column('storage_size', sa.BigInteger(), nullable=False),
    sa.Column('content', sa.Text(), nullable=True),
    sa.Column('parse_status', sa.String(length=16), nullable=False),
    sa.Column('enable_status', sa.String(length=16), nullable=False),
    sa.Column('summary_status', sa.String(length=16), nullable=False),
    sa.Column('summary', sa.Text(), nullable=True),
    sa.Column('error_message', sa.Text(), nullable=True),
    sa.Column('metadata', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('channel', sa.String(length=64), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('pending_subtasks_count', sa.Integer(), nullable=False),
    sa.Column('process_overrides', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=True),
    sa.Column('enable_multimodel', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('processed_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['knowledge_base_id'], ['knowledge_bases.id'], name=op.f('fk_knowledges_knowledge_base_id_knowledge_bases'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_knowledges'))
    )
    op.create_index(op.f('ix_knowledges_knowledge_base_id_parse_status'), 'knowledges', ['knowledge_base_id', 'parse_status'], unique=False)
    op.create_index(op.f('ix_knowledges_parse_status_updated_at'), 'knowledges', ['parse_status', 'updated_at'], unique=False)
    op.create_index(op.f('ix_knowledges_tenant_id_knowledge_base_id_file_hash'), 'knowledges', ['tenant_id', 'knowledge_base_id', 'file_hash'], unique=False)
    op.create_table('tags',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('color', sa.String(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['knowledge_base_id'], ['knowledge_bases.id'], name=op.f('fk_tags_knowledge_base_id_knowledge_bases'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tags')),
    sa.UniqueConstraint('knowledge_base_id', 'name', name=op.f('uq_tags_knowledge_base_id_name'))
    )
    op.create_table('wiki_pages',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('slug', sa.String(length=255), nullable=False),
    sa.Column('title', sa.String(length=1024), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('source_knowledge_ids', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['knowledge_base_id'], ['knowledge_bases.id'], name=op.f('fk_wiki_pages_knowledge_base_id_knowledge_bases'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_wiki_pages')),
    sa.UniqueConstraint('knowledge_base_id', 'slug', name=op.f('uq_wiki_pages_knowledge_base_id_slug'))
    )
    op.create_table('wiki_pending_ops',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_id', sa.String(length=36), nullable=False),
    sa.Column('op', sa.String(length=16), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['knowledge_base_id'], ['knowledge_bases.id'], name=op.f('fk_wiki_pending_ops_knowledge_base_id_knowledge_bases'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_wiki_pending_ops'))
    )
    op.create_index(op.f('ix_wiki_pending_ops_knowledge_base_id_created_at'), 'wiki_pending_ops', ['knowledge_base_id', 'created_at'], unique=False)
    op.create_index(op.f('ix_wiki_pending_ops_knowledge_id'), 'wiki_pending_ops', ['knowledge_id'], unique=False)
    op.create_table('chunks',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_id', sa.String(length=36), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('chunk_index', sa.Integer(), nullable=False),
    sa.Column('chunk_type', sa.String(length=32), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('context_header', sa.Text(), nullable=False),
    sa.Column('start_at', sa.Integer(), nullable=False),
    sa.Column('end_at', sa.Integer(), nullable=False),
    sa.Column('parent_chunk_id', sa.String(length=36), nullable=True),
    sa.Column('pre_chunk_id', sa.String(length=36), nullable=True),
    sa.Column('next_chunk_id', sa.String(length=36), nullable=True),
    sa.Column('is_enabled', sa.Boolean(), nullable=False),
    sa.Column('image_info', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=True),
    sa.Column('metadata', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['knowledge_id'], ['knowledges.id'], name=op.f('fk_chunks_knowledge_id_knowledges'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_chunks')),
    sa.UniqueConstraint('knowledge_id', 'chunk_type', 'chunk_index', name=op.f('uq_chunks_knowledge_id_chunk_type_chunk_index'))
    )
    op.create_index(op.f('ix_chunks_knowledge_base_id_content_hash'), 'chunks', ['knowledge_base_id', 'content_hash'], unique=False)
    op.create_index(op.f('ix_chunks_parent_chunk_id'), 'chunks', ['parent_chunk_id'], unique=False)
    op.create_table('graph_edges',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_id', sa.String(length=36), nullable=False),
    sa.Column('source', sa.String(length=512), nullable=False),
    sa.Column('target', sa.String(length=512), nullable=False),
    sa.Column('relation', sa.String(length=255), nullable=False),
    sa.Column('weight', sa.Float(), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('chunk_ids', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['knowledge_base_id'], ['knowledge_bases.id'], name=op.f('fk_graph_edges_knowledge_base_id_knowledge_bases'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['knowledge_id'], ['knowledges.id'], name=op.f('fk_graph_edges_knowledge_id_knowledges'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_graph_edges'))
    )
    op.create_index(op.f('ix_graph_edges_knowledge_base_id_source'), 'graph_edges', ['knowledge_base_id', 'source'], unique=False)
    op.create_index(op.f('ix_graph_edges_knowledge_base_id_target'), 'graph_edges', ['knowledge_base_id', 'target'], unique=False)
    op.create_index(op.f('ix_graph_edges_knowledge_id'), 'graph_edges', ['knowledge_id'], unique=False)
    op.create_table('graph_nodes',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_base_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=512), nullable=False),
    sa.Column('type', sa.String(length=128), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('chunk_ids', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['knowledge_base_id'], ['knowledge_bases.id'], name=op.f('fk_graph_nodes_knowledge_base_id_knowledge_bases'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['knowledge_id'], ['knowledges.id'], name=op.f('fk_graph_nodes_knowledge_id_knowledges'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_graph_nodes'))
    )
    op.create_index(op.f('ix_graph_nodes_knowledge_base_id_name'), 'graph_nodes', ['knowledge_base_id', 'name'], unique=False)
    op.create_index(op.f('ix_graph_nodes_knowledge_id'), 'graph_nodes', ['knowledge_id'], unique=False)
    op.create_table('knowledge_processing_spans',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=False),
    sa.Column('knowledge_id', sa.String(length=36), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('parent_id', sa.String(length=36), nullable=True),
    sa.Column('name', sa.String(length=128), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('stage', sa.String(length=16), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('input', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=True),
    sa.Column('output', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=True),
    sa.Column('error_code', sa.String(length=64), nullable=True),
    sa.Column('error_message', sa.Text(), nullable=True),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('duration_ms', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['knowledge_id'], ['knowledges.id'], name=op.f('fk_knowledge_processing_spans_knowledge_id_knowledges'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_knowledge_processing_spans')),
    sa.UniqueConstraint('knowledge_id', 'attempt', 'name', name=op.f('uq_knowledge_processing_spans_knowledge_id_attempt_name'))
    )
    op.create_table('knowledge_tags',
    sa.Column('knowledge_id', sa.String(length=36), nullable=False),
    sa.Column('tag_id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['knowledge_id'], ['knowledges.id'], name=op.f('fk_knowledge_tags_knowledge_id_knowledges'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['tag_id'], ['tags.id'], name=op.f('fk_knowledge_tags_tag_id_tags'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('knowledge_id', 'tag_id', name=op.f('pk_knowledge_tags'))
    )
    op.create_index(op.f('ix_knowledge_tags_tag_id'), 'knowledge_tags', ['tag_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_knowledge_tags_tag_id'), table_name='knowledge_tags')
    op.drop_table('knowledge_tags')
    op.drop_table('knowledge_processing_spans')
    op.drop_index(op.f('ix_graph_nodes_knowledge_id'), table_name='graph_nodes')
    op.drop_index(op.f('ix_graph_nodes_knowledge_base_id_name'), table_name='graph_nodes')
    op.drop_table('graph_nodes')
    op.drop_index(op.f('ix_graph_edges_knowledge_id'), table_name='graph_edges')
    op.drop_index(op.f('ix_graph_edges_knowledge_base_id_target'), table_name='graph_edges')
    op.drop_index(op.f('ix_graph_edges_knowledge_base_id_source'), table_name='graph_edges')
    op.drop_table('graph_edges')
    op.drop_index(op.f('ix_chunks_parent_chunk_id'), table_name='chunks')
    op.drop_index(op.f('ix_chunks_knowledge_base_id_content_hash'), table_name='chunks')
    op.drop_table('chunks')
    op.drop_index(op.f('ix_wiki_pending_ops_knowledge_id'), table_name='wiki_pending_ops')
    op.drop_index(op.f('ix_wiki_pending_ops_knowledge_base_id_created_at'), table_name='wiki_pending_ops')
    op.drop_table('wiki_pending_ops')
    op.drop_table('wiki_pages')
    op.drop_table('tags')
    op.drop_index(op.f('ix_knowledges_tenant_id_knowledge_base_id_file_hash'), table_name='knowledges')
    op.drop_index(op.f('ix_knowledges_parse_status_updated_at'), table_name='knowledges')
    op.drop_index(op.f('ix_knowledges_knowledge_base_id_parse_status'), table_name='knowledges')
    op.drop_table('knowledges')
    op.drop_index(op.f('ix_faq_import_jobs_knowledge_base_id'), table_name='faq_import_jobs')
    op.drop_table('faq_import_jobs')
    op.drop_table('knowledge_bases')
    op.drop_index(op.f('ix_api_keys_tenant_id'), table_name='api_keys')
    op.drop_table('api_keys')
    op.drop_index(op.f('ix_access_grants_resource_id'), table_name='access_grants')
    op.drop_index(op.f('ix_access_grants_expires_at'), table_name='access_grants')
    op.drop_table('access_grants')
    op.drop_table('tenants')
    op.drop_index(op.f('ix_storage_resources_tenant_id'), table_name='storage_resources')
    op.drop_index(op.f('ix_storage_resources_owner_type_owner_id'), table_name='storage_resources')
    op.drop_table('storage_resources')
    op.drop_index(op.f('ix_kb_clone_jobs_tenant_id'), table_name='kb_clone_jobs')
    op.drop_table('kb_clone_jobs')
