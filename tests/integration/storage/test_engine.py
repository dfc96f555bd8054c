"""Database handle behaviour: transactions, SQLite connection settings, cascades."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from storage.db.engine import Database, normalize_url
from storage.db.models import Chunk, Knowledge, Tenant
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from tests.integration.storage.conftest import Scope


def test_session_rolls_back_when_the_block_raises(database: Database) -> None:
    with pytest.raises(RuntimeError), database.session() as session:
        session.add(Tenant(id="rolled-back-tenant", name="x"))
        session.flush()
        raise RuntimeError("boom")
    with database.session() as session:
        assert session.get(Tenant, "rolled-back-tenant") is None


def test_sqlite_connections_use_wal_foreign_keys_and_busy_timeout(tmp_path: Path) -> None:
    db = Database.from_url(f"sqlite:///{tmp_path / 'pragmas.db'}")
    try:
        with db.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000
    finally:
        db.dispose()


def test_plain_postgresql_urls_use_psycopg_3() -> None:
    assert normalize_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalize_url("sqlite:///x.db").drivername == "sqlite"


def test_deleting_a_knowledge_base_cascades_to_knowledges_and_chunks(
    database: Database, scope: Scope
) -> None:
    knowledge = KnowledgeRepository(database).create(
        tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id, title="t"
    )
    ChunkRepository(database).insert_many(
        [NewChunk(scope.tenant_id, scope.knowledge_base_id, knowledge.id, 0, "hello")]
    )

    assert KnowledgeBaseRepository(database).delete(scope.tenant_id, scope.knowledge_base_id)

    with database.session() as session:
        assert session.get(Knowledge, knowledge.id) is None
        assert session.scalars(select(Chunk).where(Chunk.knowledge_id == knowledge.id)).all() == []


def test_timestamps_come_back_timezone_aware(database: Database, scope: Scope) -> None:
    knowledge = KnowledgeRepository(database).create(
        tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id
    )
    reread = KnowledgeRepository(database).get(knowledge.id, None)
    assert reread is not None
    assert reread.created_at.utcoffset() is not None
    assert reread.created_at == knowledge.created_at


def test_absent_json_values_are_sql_null(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge = repo.create(
        tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id, meta={}
    )
    repo.update_fields(knowledge.id, process_overrides=None)
    with database.session() as session:
        query = select(Knowledge.id).where(
            Knowledge.id == knowledge.id, Knowledge.process_overrides.is_(None)
        )
        assert session.scalar(query) == knowledge.id
