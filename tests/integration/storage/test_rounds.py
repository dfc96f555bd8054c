"""Repository pieces of attempts and deletes, on real PostgreSQL and SQLite: chunk writes
guarded by the round, removals scoped to rounds, the guarded new round, marking rows
deleting, and the rows derived from a knowledge that go with it."""

from __future__ import annotations

from typing import Any

from storage.db.engine import Database
from storage.db.models import GraphEdge, GraphNode, Knowledge, KnowledgeTag, Tag, WikiPendingOp
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.repositories.enrichment import EnrichmentRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.resources import KNOWLEDGE_IMAGE, StorageResourceRepository
from storage.db.repositories.tags import TagRepository
from storage.db.repositories.wiki_ops import WikiOpRepository
from tests.integration.storage.conftest import Scope, run_together


def knowledge(db: Database, scope: Scope, **fields: Any) -> Knowledge:
    values = {"parse_status": "processing", "attempt": 1, **fields}
    return KnowledgeRepository(db).create(
        tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id, **values
    )


def chunks(scope: Scope, knowledge_id: str, attempt: int, count: int) -> list[NewChunk]:
    return [
        NewChunk(
            tenant_id=scope.tenant_id,
            knowledge_base_id=scope.knowledge_base_id,
            knowledge_id=knowledge_id,
            chunk_index=index,
            content=f"round {attempt} chunk {index}",
            attempt=attempt,
            id=f"{knowledge_id[:8]}-{attempt}-{index}",
        )
        for index in range(count)
    ]


def test_insert_for_attempt_writes_only_while_the_round_is_current_and_processing(
    database: Database, scope: Scope
) -> None:
    repo, rows = ChunkRepository(database), KnowledgeRepository(database)
    current = knowledge(database, scope, attempt=2)
    cancelled = knowledge(database, scope, parse_status="cancelled")

    assert not repo.insert_for_attempt(current.id, 1, chunks(scope, current.id, 1, 3))
    assert not repo.insert_for_attempt(cancelled.id, 1, chunks(scope, cancelled.id, 1, 3))
    assert repo.insert_for_attempt(current.id, 2, chunks(scope, current.id, 2, 3))
    # A retry of the same round replaces its rows instead of colliding with them.
    assert repo.insert_for_attempt(current.id, 2, chunks(scope, current.id, 2, 2))

    assert repo.count_by_knowledge(current.id) == 2
    assert repo.count_by_knowledge(cancelled.id) == 0
    assert rows.begin_attempt(current.id, after_attempt=2) == 3
    assert not repo.insert_for_attempt(current.id, 2, chunks(scope, current.id, 2, 1))


def test_round_removals_never_touch_a_newer_round(database: Database, scope: Scope) -> None:
    repo = ChunkRepository(database)
    row = knowledge(database, scope)
    repo.insert_many(
        [
            NewChunk(
                tenant_id=scope.tenant_id,
                knowledge_base_id=scope.knowledge_base_id,
                knowledge_id=row.id,
                chunk_index=10 * attempt + index,
                content=f"round {attempt}",
                attempt=attempt,
                id=f"{row.id[:8]}-r{attempt}-{index}",
            )
            for attempt in (1, 2, 3)
            for index in range(2)
        ]
    )

    assert sorted(repo.ids_of_attempt(row.id, 2)) == [f"{row.id[:8]}-r2-0", f"{row.id[:8]}-r2-1"]
    assert len(repo.ids_of_attempt(row.id, 2, and_older=True)) == 4
    assert repo.delete_attempt(row.id, 2, and_older=True) == 4
    assert sorted(c.attempt for c in repo.list_by_knowledge(row.id, tenant_id=None)[0]) == [3, 3]
    assert repo.delete_attempt(row.id, 2) == 0
    assert repo.delete_attempt(row.id, 3) == 2


def test_begin_attempt_is_guarded_on_the_round_seen(database: Database, scope: Scope) -> None:
    rows = KnowledgeRepository(database)
    row = knowledge(database, scope, parse_status="completed", enable_status="enabled")
    draft = knowledge(database, scope, parse_status="draft", attempt=0)
    deleting = knowledge(database, scope, parse_status="deleting")

    winners = run_together(
        4, lambda _: rows.begin_attempt(row.id, after_attempt=1, enable_status="disabled")
    )

    assert sorted(w for w in winners if w is not None) == [2]
    assert winners.count(None) == 3
    fresh = rows.get(row.id, None)
    assert fresh is not None
    assert (fresh.attempt, fresh.parse_status, fresh.enable_status) == (2, "pending", "disabled")
    assert rows.begin_attempt(draft.id, after_attempt=0) is None
    assert rows.begin_attempt(deleting.id, after_attempt=1) is None


def test_mark_deleting_marks_each_row_once_and_returns_it_as_it_was(
    database: Database, scope: Scope
) -> None:
    rows = KnowledgeRepository(database)
    first = knowledge(database, scope)
    second = knowledge(database, scope, parse_status="completed")

    marked = rows.mark_deleting([first.id, second.id, first.id, "no-such-id"])
    again = rows.mark_deleting([first.id])

    assert sorted((r.id, r.parse_status) for r in marked) == sorted(
        [(first.id, "processing"), (second.id, "completed")]
    )
    assert again == []
    both = rows.get_many([first.id, second.id], tenant_id=None)
    assert {r.parse_status for r in both} == {"deleting"}
    assert [r.id for r in rows.list(None, scope.knowledge_base_id)[0]] == []


def test_the_delete_chain_rows(database: Database, scope: Scope) -> None:
    rows, enrichment = KnowledgeRepository(database), EnrichmentRepository(database)
    doomed, kept = knowledge(database, scope), knowledge(database, scope)
    with database.session() as session:
        tag = Tag(tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id, name="t")
        session.add(tag)
        session.flush()
        for row in (doomed, kept):
            common = {"tenant_id": scope.tenant_id, "knowledge_base_id": scope.knowledge_base_id}
            session.add(GraphNode(**common, knowledge_id=row.id, name="pump"))
            session.add(GraphEdge(**common, knowledge_id=row.id, source="pump", target="gate"))
            session.add(WikiPendingOp(**common, knowledge_id=row.id, op="ingest"))
            session.add(KnowledgeTag(knowledge_id=row.id, tag_id=tag.id))

    assert enrichment.delete_graph([doomed.id]) == 2
    assert WikiOpRepository(database).drop_for_knowledges([doomed.id]) == 1
    assert rows.delete_tag_links([doomed.id]) == 1
    assert rows.delete_many([doomed.id, "no-such-id"]) == 1

    assert rows.get(doomed.id, None) is None
    assert TagRepository(database).tags_of([kept.id], tenant_id=None) == {kept.id: [tag.id]}
    assert enrichment.delete_graph([kept.id]) == 2


def test_extracted_images_are_recorded_per_knowledge(database: Database, scope: Scope) -> None:
    resources = StorageResourceRepository(database)
    one, other = knowledge(database, scope), knowledge(database, scope)
    for owner, path in ((one.id, "local://a.png"), (one.id, "local://b.png"), (other.id, "x")):
        resources.record(
            tenant_id=scope.tenant_id,
            path=path,
            owner_type=KNOWLEDGE_IMAGE,
            owner_id=owner,
            size=3,
            content_type="image/png",
        )

    assert resources.paths_owned_by(KNOWLEDGE_IMAGE, [one.id]) == ["local://a.png", "local://b.png"]
    assert resources.paths_owned_by("knowledge", [one.id]) == []
    assert resources.forget(KNOWLEDGE_IMAGE, [one.id], ["local://a.png"]) == 1
    assert resources.paths_owned_by(KNOWLEDGE_IMAGE, [one.id, other.id]) == ["local://b.png", "x"]
