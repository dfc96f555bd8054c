"""SpanRepository against real databases."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from core.clock import ManualClock
from storage.db.engine import Database
from storage.db.models import Knowledge
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.spans import SpanRepository
from tests.integration.storage.conftest import Scope


def knowledge_in(database: Database, scope: Scope) -> Knowledge:
    return KnowledgeRepository(database).create(
        tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id
    )


def test_upsert_inserts_then_updates_the_same_row(
    database: Database, scope: Scope, clock: ManualClock
) -> None:
    repo = SpanRepository(database, clock=clock)
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

    clock.advance(0.01)
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


def test_list_is_per_attempt_in_creation_order(
    database: Database, scope: Scope, clock: ManualClock
) -> None:
    repo = SpanRepository(database, clock=clock)
    knowledge = knowledge_in(database, scope)
    for name in ("knowledge_processing", "docreader", "chunking"):
        repo.upsert(knowledge.id, 1, name)
        clock.advance(0.002)
    repo.upsert(knowledge.id, 2, "knowledge_processing", kind="root")

    assert [s.name for s in repo.list(knowledge.id, 1, tenant_id=None)] == [
        "knowledge_processing",
        "docreader",
        "chunking",
    ]
    assert [s.kind for s in repo.list(knowledge.id, 2, tenant_id=None)] == ["root"]
    assert repo.list(knowledge.id, 3, tenant_id=None) == []


def test_latest_attempt_and_last_activity(
    database: Database, scope: Scope, clock: ManualClock
) -> None:
    repo = SpanRepository(database, clock=clock)
    knowledge = knowledge_in(database, scope)
    assert repo.latest_attempt(knowledge.id) == 0
    assert repo.last_activity(knowledge.id, 1) is None

    repo.upsert(knowledge.id, 1, "docreader")
    repo.upsert(knowledge.id, 3, "docreader")
    clock.advance(0.01)
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

    assert sorted(span.name for span in closed) == ["chunking", "embedding"]
    # Each closed span took a sequence number of its own, after the four writes above.
    assert sorted(span.sequence for span in closed) == [5, 6]
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


def test_every_change_takes_the_next_sequence_of_its_knowledge(
    database: Database, scope: Scope
) -> None:
    repo = SpanRepository(database)
    first, other = knowledge_in(database, scope), knowledge_in(database, scope)

    a = repo.upsert(first.id, 1, "docreader", status="running")
    b = repo.upsert(first.id, 1, "chunking", status="pending")
    c = repo.upsert(first.id, 1, "docreader", status="done")
    d = repo.upsert(first.id, 2, "docreader", status="running")  # attempts share the counter
    elsewhere = repo.upsert(other.id, 1, "docreader", status="running")

    assert [a.sequence, b.sequence, c.sequence, d.sequence] == [1, 2, 3, 4]
    assert elsewhere.sequence == 1
    stored = {s.name: s.sequence for s in repo.list(first.id, 1, tenant_id=None)}
    assert stored == {"docreader": 3, "chunking": 2}
    row = KnowledgeRepository(database).get(first.id, None)
    assert row is not None and row.span_sequence == 4


def test_concurrent_writers_get_distinct_sequences_in_commit_order(
    database: Database, scope: Scope
) -> None:
    """Many threads writing spans of one knowledge: no number twice, none skipped, and each
    span's stored sequence is that of its last write."""
    repo = SpanRepository(database)
    knowledge = knowledge_in(database, scope)

    def write(worker: int) -> list[int]:
        return [
            repo.upsert(knowledge.id, 1, f"step.{worker}", output={"n": n}).sequence
            for n in range(10)
        ]

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(write, range(6)))

    everything = sorted(n for numbers in results for n in numbers)
    assert everything == list(range(1, 61))
    for numbers in results:
        assert numbers == sorted(numbers)
    stored = {s.name: s.sequence for s in repo.list(knowledge.id, 1, tenant_id=None)}
    assert stored == {f"step.{w}": results[w][-1] for w in range(6)}
