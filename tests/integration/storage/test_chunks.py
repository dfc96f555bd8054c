"""ChunkRepository against real databases."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError

from storage.db.engine import Database
from storage.db.models import Knowledge
from storage.db.repositories.chunks import INSERT_BATCH_SIZE, ChunkRepository, NewChunk
from storage.db.repositories.knowledges import KnowledgeRepository
from tests.integration.storage.conftest import Scope


def knowledge_in(database: Database, scope: Scope) -> Knowledge:
    return KnowledgeRepository(database).create(
        tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id
    )


def chunk(scope: Scope, knowledge_id: str, index: int, **fields: object) -> NewChunk:
    return NewChunk(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        knowledge_id=knowledge_id,
        chunk_index=index,
        content=f"chunk {index}",
        **fields,  # type: ignore[arg-type]
    )


def test_insert_many_writes_every_batch_in_one_call(database: Database, scope: Scope) -> None:
    repo = ChunkRepository(database)
    knowledge = knowledge_in(database, scope)
    count = 2 * INSERT_BATCH_SIZE + 7
    repo.insert_many([chunk(scope, knowledge.id, i) for i in range(count)])
    assert repo.count_by_knowledge(knowledge.id) == count


def test_fields_round_trip(database: Database, scope: Scope) -> None:
    repo = ChunkRepository(database)
    knowledge = knowledge_in(database, scope)
    parent = chunk(scope, knowledge.id, 0)
    child = chunk(
        scope,
        knowledge.id,
        0,
        chunk_type="image_caption",
        parent_chunk_id=parent.id,
        image_info={"url": "local://t/k/x.png", "width": 640},
        meta={"lang": "ru", "tags": ["a"]},
        context_header="# Title > Part",
        start_at=3,
        end_at=9,
        is_enabled=False,
        attempt=2,
    )
    repo.insert_many([parent, child])
    stored = repo.get_many([child.id], tenant_id=None)[0]
    assert (stored.chunk_type, stored.parent_chunk_id, stored.attempt) == (
        "image_caption",
        parent.id,
        2,
    )
    assert stored.image_info == {"url": "local://t/k/x.png", "width": 640}
    assert stored.meta == {"lang": "ru", "tags": ["a"]}
    assert (stored.context_header, stored.start_at, stored.end_at) == ("# Title > Part", 3, 9)
    assert stored.is_enabled is False
    assert stored.created_at.utcoffset() is not None


def test_the_same_chunk_can_never_be_written_twice(database: Database, scope: Scope) -> None:
    repo = ChunkRepository(database)
    knowledge = knowledge_in(database, scope)
    repo.insert_many([chunk(scope, knowledge.id, 0), chunk(scope, knowledge.id, 1)])

    # A retried write of index 1 fails as a whole: index 2 of the same call is not kept.
    with pytest.raises(IntegrityError):
        repo.insert_many([chunk(scope, knowledge.id, 2), chunk(scope, knowledge.id, 1)])
    assert repo.count_by_knowledge(knowledge.id) == 2

    # Other types may share an index (an image caption next to its text chunk).
    repo.insert_many([chunk(scope, knowledge.id, 1, chunk_type="image_ocr")])
    assert repo.count_by_knowledge(knowledge.id) == 3


def test_list_by_knowledge_pages_in_document_order(database: Database, scope: Scope) -> None:
    repo = ChunkRepository(database)
    knowledge, other = knowledge_in(database, scope), knowledge_in(database, scope)
    repo.insert_many([chunk(scope, knowledge.id, i) for i in (2, 0, 1)])
    repo.insert_many([chunk(scope, knowledge.id, 0, chunk_type="text_summary_is_not_text")])
    repo.insert_many([chunk(scope, other.id, 0)])

    first, total = repo.list_by_knowledge(knowledge.id, limit=2, offset=0, tenant_id=None)
    rest, _ = repo.list_by_knowledge(knowledge.id, limit=10, offset=2, tenant_id=None)
    assert total == 4
    assert [(c.chunk_index, c.chunk_type) for c in first + rest] == [
        (0, "text"),
        (0, "text_summary_is_not_text"),
        (1, "text"),
        (2, "text"),
    ]


def test_get_many_keeps_the_requested_order_and_skips_missing(
    database: Database, scope: Scope
) -> None:
    repo = ChunkRepository(database)
    knowledge = knowledge_in(database, scope)
    chunks = [chunk(scope, knowledge.id, i) for i in range(3)]
    repo.insert_many(chunks)
    ids = [chunks[2].id, "missing", chunks[0].id]
    assert [c.id for c in repo.get_many(ids, tenant_id=None)] == [chunks[2].id, chunks[0].id]
    assert repo.get_many([], tenant_id=None) == []


def test_delete_by_knowledge_removes_only_that_knowledge(database: Database, scope: Scope) -> None:
    repo = ChunkRepository(database)
    knowledge, other = knowledge_in(database, scope), knowledge_in(database, scope)
    repo.insert_many([chunk(scope, knowledge.id, i) for i in range(3)])
    repo.insert_many([chunk(scope, other.id, 0)])
    assert repo.delete_by_knowledges([knowledge.id]) == 3
    assert repo.count_by_knowledge(knowledge.id) == 0
    assert repo.count_by_knowledge(other.id) == 1


def test_replace_children_touches_only_the_parents_named(database: Database, scope: Scope) -> None:
    repo = ChunkRepository(database)
    knowledge = knowledge_in(database, scope)
    knowledges = KnowledgeRepository(database)
    attempt = knowledges.next_attempt(knowledge.id)
    assert knowledges.transition(knowledge.id, from_statuses=["pending"], to_status="finalizing")
    texts = [chunk(scope, knowledge.id, i, attempt=attempt) for i in range(3)]
    repo.insert_many(texts)

    def question(parent: NewChunk, index: int) -> NewChunk:
        return chunk(
            scope,
            knowledge.id,
            index,
            chunk_type="question",
            attempt=attempt,
            parent_chunk_id=parent.id,
        )

    first = [question(texts[0], 0), question(texts[1], 10)]
    assert repo.replace_children(
        knowledge.id,
        attempt,
        "question",
        [texts[0].id, texts[1].id],
        first,
        statuses=["finalizing"],
    )
    other = [question(texts[2], 20)]
    assert repo.replace_children(
        knowledge.id, attempt, "question", [texts[2].id], other, statuses=["finalizing"]
    )
    again = [question(texts[0], 1)]
    assert repo.replace_children(
        knowledge.id,
        attempt,
        "question",
        [texts[0].id, texts[1].id],
        again,
        statuses=["finalizing"],
    )
    stored = repo.list_of_types(knowledge.id, attempt, ["question"])
    assert sorted(c.id for c in stored) == sorted([again[0].id, other[0].id])
    assert not repo.replace_children(
        knowledge.id, attempt, "question", [texts[2].id], [], statuses=["processing"]
    ), "not while the knowledge is elsewhere"
    with pytest.raises(ValueError):
        repo.replace_children(
            knowledge.id, attempt, "question", [texts[0].id], other, statuses=["finalizing"]
        )
    assert repo.delete_children(knowledge.id, attempt, "question", [texts[2].id]) == [other[0].id]
    assert [c.id for c in repo.list_of_types(knowledge.id, attempt, ["question"])] == [again[0].id]
