"""The commit point of a knowledge's move and the move jobs' rows, on PostgreSQL and SQLite:
the knowledge and its chunks change knowledge base and lose their tag links together, only
from the source and only when it is not being processed, never twice; a job's progress is
set (not added to) and an ended job stays ended."""

from __future__ import annotations

from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledge_moves import KnowledgeMoveRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.tags import TagRepository
from tests.integration.storage.conftest import Scope


def test_rows_move_once_with_their_chunks_and_without_tags(
    database: Database, scope: Scope
) -> None:
    target = KnowledgeBaseRepository(database).create(scope.tenant_id, "target").id
    tag = TagRepository(database).create(scope.tenant_id, scope.knowledge_base_id, "red", "")
    knowledges = KnowledgeRepository(database)
    row = knowledges.create(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        parse_status="completed",
        tag_ids=[tag.id],
    )
    chunks = ChunkRepository(database)
    chunks.insert_many(
        [
            NewChunk(scope.tenant_id, scope.knowledge_base_id, row.id, i, f"text {i}")
            for i in range(3)
        ]
    )
    moves = KnowledgeMoveRepository(database)

    assert moves.move_rows(row.id, scope.knowledge_base_id, target)
    assert not moves.move_rows(row.id, scope.knowledge_base_id, target)  # moved already

    moved = knowledges.get(row.id, None)
    assert moved is not None and moved.knowledge_base_id == target
    assert {
        c.knowledge_base_id for c in chunks.list_by_knowledge(row.id, 10, tenant_id=None)[0]
    } == {target}
    assert TagRepository(database).tags_of([row.id], tenant_id=None)[row.id] == []


def test_a_knowledge_being_processed_does_not_move(database: Database, scope: Scope) -> None:
    target = KnowledgeBaseRepository(database).create(scope.tenant_id, "target").id
    row = KnowledgeRepository(database).create(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        parse_status="processing",
    )
    assert not KnowledgeMoveRepository(database).move_rows(row.id, scope.knowledge_base_id, target)


def test_job_progress_is_set_and_an_ended_job_stays_ended(database: Database, scope: Scope) -> None:
    moves = KnowledgeMoveRepository(database)
    job = moves.create_job(
        tenant_id=scope.tenant_id,
        source_knowledge_base_id=scope.knowledge_base_id,
        target_knowledge_base_id="t",
        mode="reparse",
        knowledge_ids=["a", "b"],
    )
    assert moves.record(job.id, done=1, failures={"b": "deleted"}, status="processing")
    assert moves.record(job.id, done=1, failures={"b": "deleted"})
    assert moves.finish(job.id, "completed")
    assert not moves.finish(job.id, "failed", "late")
    assert not moves.record(job.id, done=0, failures={})
    stored = moves.get_job(job.id, scope.tenant_id)
    assert stored is not None
    assert (stored.status, stored.total, stored.done, stored.failed) == ("completed", 2, 1, 1)
    assert stored.failures == {"b": "deleted"} and stored.error_message is None
    assert moves.get_job(job.id, "another-tenant") is None
