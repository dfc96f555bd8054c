"""KnowledgeEditRepository and the summary's refresh requests, on real PostgreSQL and
SQLite: a metadata change bumps metadata_version, a chunk edit commits or rolls back as a
whole, and an edit of a completed knowledge with a summary marks it stale and pending and
names the refresh to queue (the same one until a refresh begins); tags of another tenant
are neither found, renamed nor deleted, and a deleted tag takes its links along."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from core.statuses import ParseStatus, SummaryStatus
from storage.db.engine import Database
from storage.db.errors import AlreadyExistsError
from storage.db.models import Chunk, Knowledge
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.repositories.edits import KnowledgeEditRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.tags import TagRepository
from tests.integration.storage.conftest import Scope, new_scope


class IndexDown(Exception):
    """What an index write raising inside the edit's block stands for."""


def _knowledge(db: Database, scope: Scope, summary: SummaryStatus) -> Knowledge:
    return KnowledgeRepository(db).create(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        parse_status=ParseStatus.COMPLETED,
        summary_status=summary,
        summary="A pump manual." if summary == SummaryStatus.COMPLETED else None,
    )


def _chunk(db: Database, knowledge: Knowledge) -> str:
    chunk = NewChunk(
        knowledge.tenant_id, knowledge.knowledge_base_id, knowledge.id, 0, "red button"
    )
    ChunkRepository(db).insert_many([chunk])
    return chunk.id


def _rows(db: Database, knowledge_id: str, chunk_id: str) -> tuple[Knowledge, Chunk]:
    knowledge = KnowledgeRepository(db).get(knowledge_id, None)
    [chunk] = ChunkRepository(db).get_many([chunk_id], tenant_id=None)
    assert knowledge is not None
    return knowledge, chunk


def test_a_metadata_change_bumps_its_version_and_calls_for_one_refresh(
    database: Database, scope: Scope
) -> None:
    edits = KnowledgeEditRepository(database)
    knowledge = _knowledge(database, scope, SummaryStatus.COMPLETED)

    first = edits.update_metadata(knowledge.id, scope.tenant_id, {"owner": "ops"})
    again = edits.update_metadata(knowledge.id, scope.tenant_id, {"owner": "dev"})
    same = edits.update_metadata(knowledge.id, scope.tenant_id, {"owner": "dev"})

    # Both name refresh 0: the one waiting task (same job id) covers both edits.
    assert first is not None and first.summary_refresh == 0
    assert again is not None and again.summary_refresh == 0
    assert same is not None and same.summary_refresh is None
    assert same.knowledge.metadata_version == 2
    stored = KnowledgeRepository(database).get(knowledge.id, None)
    assert stored is not None
    assert (stored.meta, stored.metadata_version, stored.summary_stale) == (
        {"owner": "dev"},
        2,
        True,
    )
    assert stored.summary_status == SummaryStatus.PENDING
    assert edits.update_metadata(knowledge.id, new_scope(database).tenant_id, {}) is None


def test_no_refresh_without_a_summary_or_a_completed_round(
    database: Database, scope: Scope
) -> None:
    edits = KnowledgeEditRepository(database)
    for status in (SummaryStatus.NONE, SummaryStatus.FAILED):
        knowledge = _knowledge(database, scope, status)
        update = edits.update_metadata(knowledge.id, None, {"k": "v"})
        assert update is not None and update.summary_refresh is None
        assert (update.knowledge.summary_stale, update.knowledge.summary_status) == (False, status)
    failed = KnowledgeRepository(database).create(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        parse_status=ParseStatus.FAILED,
        summary_status=SummaryStatus.COMPLETED,
        summary="old",
    )
    update = edits.update_metadata(failed.id, None, {"k": "v"})
    assert update is not None and update.summary_refresh is None
    request = edits.request_summary_refresh(failed.id, None)
    assert request is not None and request.sequence is None


def test_a_refresh_in_flight_is_followed_by_one_more(database: Database, scope: Scope) -> None:
    edits = KnowledgeEditRepository(database)
    knowledge = _knowledge(database, scope, SummaryStatus.PROCESSING)
    with database.session() as session:
        session.execute(
            update(Knowledge).where(Knowledge.id == knowledge.id).values(summary_refresh_seq=3)
        )
    update_ = edits.update_metadata(knowledge.id, None, {"k": "v"})
    assert update_ is not None and update_.summary_refresh == 3
    assert update_.knowledge.summary_status == SummaryStatus.PROCESSING
    regenerated = edits.request_summary_refresh(knowledge.id, None)
    assert regenerated is not None and regenerated.sequence == 3


def test_a_chunk_edit_commits_whole_or_not_at_all(database: Database, scope: Scope) -> None:
    edits = KnowledgeEditRepository(database)
    knowledge = _knowledge(database, scope, SummaryStatus.COMPLETED)
    chunk_id = _chunk(database, knowledge)

    with pytest.raises(IndexDown), edits.chunk_for_edit(chunk_id, scope.tenant_id) as locked:
        assert locked is not None
        locked.chunk.content = "blue lever"
        locked.chunk.content_revision += 1
        assert locked.summary_refresh() == 0
        raise IndexDown
    stored, chunk = _rows(database, knowledge.id, chunk_id)
    assert (chunk.content, chunk.content_revision, stored.summary_stale) == ("red button", 0, False)

    with edits.chunk_for_edit(chunk_id, scope.tenant_id) as locked:
        assert locked is not None
        locked.chunk.content = "blue lever"
        locked.chunk.content_revision += 1
        locked.summary_refresh()
    stored, chunk = _rows(database, knowledge.id, chunk_id)
    assert (chunk.content, chunk.content_revision, stored.summary_stale) == ("blue lever", 1, True)


def test_a_chunk_is_not_edited_for_another_tenant_or_while_deleting(
    database: Database, scope: Scope
) -> None:
    edits = KnowledgeEditRepository(database)
    knowledge = _knowledge(database, scope, SummaryStatus.NONE)
    chunk_id = _chunk(database, knowledge)
    with edits.chunk_for_edit(chunk_id, new_scope(database).tenant_id) as locked:
        assert locked is None
    KnowledgeRepository(database).mark_deleting([knowledge.id])
    with edits.chunk_for_edit(chunk_id, scope.tenant_id) as locked:
        assert locked is None


def test_tags_are_managed_within_their_tenant(database: Database, scope: Scope) -> None:
    tags = TagRepository(database)
    stranger = new_scope(database).tenant_id
    pumps = tags.create(scope.tenant_id, scope.knowledge_base_id, "pumps", "")
    valves = tags.create(scope.tenant_id, scope.knowledge_base_id, "valves", "#00f")
    with pytest.raises(AlreadyExistsError):
        tags.create(scope.tenant_id, scope.knowledge_base_id, "pumps", "")
    with pytest.raises(AlreadyExistsError):
        tags.rename(valves.id, scope.tenant_id, "pumps")
    knowledge = _knowledge(database, scope, SummaryStatus.NONE)
    edits = KnowledgeEditRepository(database)
    assert edits.replace_tags(knowledge.id, scope.knowledge_base_id, [pumps.id, "gone"]) == {"gone"}
    assert tags.tags_of([knowledge.id], tenant_id=None) == {knowledge.id: []}
    assert edits.replace_tags(knowledge.id, scope.knowledge_base_id, [pumps.id, valves.id]) == set()

    assert tags.get(pumps.id, stranger) is None
    assert tags.rename(pumps.id, stranger, "mine") is None
    assert tags.delete(pumps.id, stranger) is None
    assert [
        t.name
        for t in tags.list(scope.knowledge_base_id, tenant_id=stranger, limit=10, offset=0)[0]
    ] == []
    renamed = tags.rename(pumps.id, scope.tenant_id, "pump room")
    assert renamed is not None and renamed.name == "pump room"
    assert tags.delete(pumps.id, scope.tenant_id) == 1
    assert tags.tags_of([knowledge.id], tenant_id=None) == {knowledge.id: [valves.id]}
    rows, total = tags.list(scope.knowledge_base_id, tenant_id=scope.tenant_id, limit=10, offset=0)
    assert ([t.id for t in rows], total) == ([valves.id], 1)
