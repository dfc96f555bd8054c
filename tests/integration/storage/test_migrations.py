"""The migrations build the schema from nothing, and they describe exactly the models."""

from __future__ import annotations

from sqlalchemy import inspect

from storage.db.engine import Database
from storage.db.migrate import current_revision, schema_diff, upgrade_to_head
from storage.db.models import Base

HEAD_REVISION = "0018"
EXPECTED_TABLES = {
    "tenants",
    "api_keys",
    "knowledge_bases",
    "knowledges",
    "chunks",
    "index_checkpoints",
    "subtask_ends",
    "kb_clone_items",
    "knowledge_processing_spans",
    "tags",
    "knowledge_tags",
    "storage_resources",
    "access_grants",
    "graph_entities",
    "graph_mentions",
    "graph_relations",
    "graph_relation_sources",
    "wiki_pages",
    "wiki_pending_ops",
    "wiki_page_sources",
    "wiki_page_links",
    "wiki_tombstones",
    "wiki_kb_triggers",
    "faq_import_jobs",
    "faq_import_rows",
    "kb_clone_jobs",
    # issue 15, FAQ entries (0012)
    "faq_questions",
    "knowledge_move_jobs",
}


def test_upgrade_from_empty_creates_every_table(empty_db_url: str) -> None:
    assert current_revision(empty_db_url) is None

    upgrade_to_head(empty_db_url)

    assert current_revision(empty_db_url) == HEAD_REVISION
    db = Database.from_url(empty_db_url)
    try:
        tables = set(inspect(db.engine).get_table_names())
    finally:
        db.dispose()
    assert tables == EXPECTED_TABLES | {"alembic_version"}
    assert set(Base.metadata.tables) == EXPECTED_TABLES


def test_upgrade_twice_is_a_no_op(empty_db_url: str) -> None:
    upgrade_to_head(empty_db_url)
    upgrade_to_head(empty_db_url)
    assert current_revision(empty_db_url) == HEAD_REVISION


def test_models_and_migrations_do_not_differ(empty_db_url: str) -> None:
    # The comparison must see something on an empty database, or an empty diff proves nothing.
    missing = {diff[1].name for diff in schema_diff(empty_db_url) if diff[0] == "add_table"}
    assert missing == EXPECTED_TABLES

    upgrade_to_head(empty_db_url)

    assert schema_diff(empty_db_url) == []
