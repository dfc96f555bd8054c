"""The migrations build the schema from nothing, and they describe exactly the models."""

from __future__ import annotations

from sqlalchemy import inspect, text

from storage.db.engine import Database
from storage.db.migrate import current_revision, schema_diff, upgrade_to, upgrade_to_head
from storage.db.models import Base

HEAD_REVISION = "0019"
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


def test_open_clones_doubled_on_a_target_keep_the_earliest(empty_db_url: str) -> None:
    """0019's lock cannot be built over two open clones into one target (made before it,
    by calls that raced): the later ones are failed first, saying why."""
    upgrade_to(empty_db_url, "0018")
    database = Database.from_url(empty_db_url)
    jobs = [("a", "t1", "2026-12-01 10:00:00"), ("b", "t1", "2026-12-01 10:00:01")]
    jobs += [("c", "t2", "2026-12-01 10:00:00"), ("d", "t1", "2026-12-01 09:00:00")]
    try:
        with database.engine.begin() as connection:
            for job_id, target, created in jobs:
                status = "completed" if job_id == "d" else "processing"
                connection.execute(
                    text(
                        "INSERT INTO kb_clone_jobs (id, tenant_id, source_knowledge_base_id, "
                        "target_knowledge_base_id, status, total, done, skipped, failed, added, "
                        "removed, recoveries, attempts, faq_part, created_at, updated_at) VALUES "
                        "(:id, 'x', 's', :target, :status, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
                        ":created, :created)"
                    ),
                    {"id": job_id, "target": target, "status": status, "created": created},
                )
        upgrade_to_head(empty_db_url)
        with database.engine.connect() as connection:
            rows = connection.execute(
                text("SELECT id, status, error_message FROM kb_clone_jobs ORDER BY id")
            ).all()
    finally:
        database.dispose()
    assert [(r.id, r.status) for r in rows] == [
        ("a", "processing"),
        ("b", "failed"),
        ("c", "processing"),
        ("d", "completed"),
    ]
    assert rows[1].error_message == "another clone into the same knowledge base was running"
