"""SpanRepository against real databases."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from storage.db.engine import Database
from storage.db.models import Knowledge
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.spans import SpanRepository
from tests.integration.storage.conftest import Scope


def knowledge_in(database: Database, scope: Scope) -> Knowledge:
    return KnowledgeRepository(database).create(
        tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id
    )


def test_upsert_inserts_then_updates_the_same_row(database: Database, scope: Scope) -> None:
    repo = SpanRepository(database)
    knowledge = knowledge_in(database, scope)
    started = datetime.now(UTC)

    first = repo.upsert(
        knowledge.id,
        1,
        "docreader",
        kind="stage",
        stage="docreader",
        status="running",
        started_at=started,
        input={"file_name": "a.pdf"},
    )
    assert first.tenant_id == scope.tenant_id  # taken from the knowledge
    assert (first.status, first.input, first.output, first.parent_id) == (
        "running",
        {"file_name": "a.pdf"},
        None,
        None,
    )

    time.sleep(0.01)
    second = repo.upsert(knowledge.id, 1, "docreader", status="done", output={"chars": 42})
    assert second.id == first.id
    # Fields not given keep their values; updated_at is the heartbeat and always moves.
    assert (second.status, second.input, second.output) == (
        "done",
        {"file_name": "a.pdf"},
        {"chars": 42},
    )
    assert second.started_at == first.started_at
    assert second.created_at == first.created_at
    assert second.updated_at > first.updated_at
    assert [s.id for s in repo.list(knowledge.id, 1, tenant_id=None)] == [first.id]


def test_concurrent_upserts_of_one_span_make_one_row(database: Database, scope: Scope) -> None:
    repo = SpanRepository(database)
    knowledge = knowledge_in(database, scope)
    barrier = threading.Barrier(6)

    def beat(i: int) -> str:
        barrier.wait()
        return repo.upsert(knowledge.id, 1, "embedding", output={"batch": i}).id

    with ThreadPoolExecutor(max_workers=6) as pool:
        ids = set(pool.map(beat, range(6)))
    assert len(ids) == 1
    assert len(repo.list(knowledge.id, 1, tenant_id=None)) == 1


def test_list_is_per_attempt_in_creation_order(database: Database, scope: Scope) -> None:
    repo = SpanRepository(database)
    knowledge = knowledge_in(database, scope)
    for name in ("knowledge_processing", "docreader", "chunking"):
        repo.upsert(knowledge.id, 1, name)
        time.sleep(0.002)
    repo.upsert(knowledge.id, 2, "knowledge_processing", kind="root")

    assert [s.name for s in repo.list(knowledge.id, 1, tenant_id=None)] == [
        "knowledge_processing",
        "docreader",
        "chunking",
    ]
    assert [s.kind for s in repo.list(knowledge.id, 2, tenant_id=None)] == ["root"]
    assert repo.list(knowledge.id, 3, tenant_id=None) == []


def test_latest_attempt_and_last_activity(database: Database, scope: Scope) -> None:
    repo = SpanRepository(database)
    knowledge = knowledge_in(database, scope)
    assert repo.latest_attempt(knowledge.id) == 0
    assert repo.last_activity(knowledge.id, 1) is None

    repo.upsert(knowledge.id, 1, "docreader")
    repo.upsert(knowledge.id, 3, "docreader")
    time.sleep(0.01)
    beat = repo.upsert(knowledge.id, 1, "chunking")

    assert repo.latest_attempt(knowledge.id) == 3
    last = repo.last_activity(knowledge.id, 1)
    assert last == beat.updated_at
    assert last is not None and last.utcoffset() == timedelta(0)


def test_close_open_ends_pending_and_running_spans_only(database: Database, scope: Scope) -> None:
    repo = SpanRepository(database)
    knowledge = knowledge_in(database, scope)
    started = datetime.now(UTC) - timedelta(seconds=2)
    repo.upsert(knowledge.id, 1, "docreader", status="done", started_at=started)
    repo.upsert(knowledge.id, 1, "chunking", status="running", started_at=started)
    repo.upsert(knowledge.id, 1, "embedding", status="pending")
    repo.upsert(knowledge.id, 2, "docreader", status="running")

    closed = repo.close_open(knowledge.id, 1, "cancelled", "TASK_STALLED", "no progress")

    assert closed == 2
    spans = {s.name: s for s in repo.list(knowledge.id, 1, tenant_id=None)}
    assert spans["docreader"].status == "done" and spans["docreader"].error_code is None
    chunking = spans["chunking"]
    assert (chunking.status, chunking.error_code, chunking.error_message) == (
        "cancelled",
        "TASK_STALLED",
        "no progress",
    )
    assert chunking.ended_at is not None and chunking.duration_ms is not None
    assert chunking.duration_ms >= 2000
    assert spans["embedding"].status == "cancelled" and spans["embedding"].duration_ms is None
    assert repo.list(knowledge.id, 2, tenant_id=None)[0].status == "running"
