"""The span tracker writes each change to the database, then publishes the same JSON."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage.db.engine import Database
from storage.db.migrate import upgrade_to_head
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.spans import SpanRepository
from storage.db.repositories.tenants import TenantRepository
from tests.support.worker_context import RecordingPublisher
from workers.pipeline.round.spans import STAGES, SpanTracker, span_to_dict


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    url = f"sqlite:///{tmp_path / 'spans.db'}"
    upgrade_to_head(url)
    database = Database.from_url(url)
    yield database
    database.dispose()


@pytest.fixture
def knowledge_id(db: Database) -> str:
    tenant = TenantRepository(db).create_tenant("spans").id
    kb = KnowledgeBaseRepository(db).create(
        tenant,
        "kb",
        description="",
        type="document",
        config={},
        embedding_model_key="local/all-MiniLM-L6-v2/384",
        storage_backend_id="",
    )
    row = KnowledgeRepository(db).create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="file",
        title="t",
        file_name="t.md",
        file_type="md",
        parse_status="processing",
        enable_status="disabled",
        attempt=1,
    )
    return str(row.id)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=250)
        return self.now


def test_a_round_is_stored_and_published_stage_by_stage(db: Database, knowledge_id: str) -> None:
    spans, publisher = SpanRepository(db), RecordingPublisher()
    tracker = SpanTracker(
        spans, publisher, tenant_id="t", knowledge_id=knowledge_id, attempt=1, clock=Clock()
    )
    tracker.open({"file_name": "t.md"})
    stored = {s.name: s.status for s in spans.list(knowledge_id, 1, tenant_id=None)}
    assert stored == {"knowledge_processing": "running", **{s: "pending" for s in STAGES}}

    tracker.begin("docreader", {"engine": "builtin"})
    assert tracker.running_stage() == "docreader"
    tracker.end("docreader", {"total_text_chars": 10})
    tracker.begin("chunking", {})
    tracker.fail("chunking", "CHUNKING_FAILED", "bad input")
    tracker.cancel_open("UPSTREAM_FAILED", "chunking failed")
    tracker.close("failed", code="CHUNKING_FAILED", message="chunking: bad input")

    rows = {s.name: s for s in spans.list(knowledge_id, 1, tenant_id=None)}
    assert rows["docreader"].status == "done"
    assert rows["docreader"].output == {"total_text_chars": 10}
    assert rows["docreader"].duration_ms == 250
    assert rows["chunking"].status == "failed" and rows["chunking"].error_code == "CHUNKING_FAILED"
    assert [rows[s].status for s in STAGES[2:]] == ["cancelled"] * 3
    assert rows["knowledge_processing"].status == "failed"
    # Every write was published, and the last event of each span equals the stored row.
    last = {e.data["name"]: e.data for e in publisher.events}
    assert all(e.kind == "span" and e.attempt == 1 for e in publisher.events)
    for name, row in rows.items():
        assert last[name] == span_to_dict(row)


def test_attempts_are_separate_trees(db: Database, knowledge_id: str) -> None:
    spans, publisher = SpanRepository(db), RecordingPublisher()
    for attempt in (1, 2):
        SpanTracker(
            spans, publisher, tenant_id="t", knowledge_id=knowledge_id, attempt=attempt
        ).open({})
    SpanTracker(spans, publisher, tenant_id="t", knowledge_id=knowledge_id, attempt=2).skip(
        "multimodal", "not enabled"
    )
    assert {s.status for s in spans.list(knowledge_id, 1, tenant_id=None)} == {"running", "pending"}
    second = {s.name: s.status for s in spans.list(knowledge_id, 2, tenant_id=None)}
    assert second["multimodal"] == "skipped"
    assert spans.latest_attempt(knowledge_id) == 2


def test_a_failure_names_no_temporary_path(db: Database, knowledge_id: str) -> None:
    spans = SpanRepository(db)
    tracker = SpanTracker(
        spans, RecordingPublisher(), tenant_id="t", knowledge_id=knowledge_id, attempt=1
    )
    tracker.open({})
    tracker.begin("docreader", {})
    tracker.fail(
        "docreader",
        "DOCREADER_FAILED",
        "report.doc: [Errno 2] No such file or directory: '/tmp/sluice-lo-3kq/report.docx'",
    )
    [row] = [s for s in spans.list(knowledge_id, 1, tenant_id=None) if s.name == "docreader"]
    assert row.error_message == (
        "report.doc: [Errno 2] No such file or directory: '<temporary file>'"
    )


class Ticker:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_is_written_at_most_once_per_interval_and_never_lost(
    db: Database, knowledge_id: str
) -> None:
    spans, publisher, ticker = SpanRepository(db), RecordingPublisher(), Ticker()
    tracker = SpanTracker(
        spans,
        publisher,
        tenant_id="t",
        knowledge_id=knowledge_id,
        attempt=1,
        progress_interval_s=0.5,
        ticker=ticker,
    )
    tracker.open({})
    tracker.begin("embedding", {})

    def stored() -> dict[str, object]:
        [row] = [s for s in spans.list(knowledge_id, 1, tenant_id=None) if s.name == "embedding"]
        return dict(row.output or {})

    tracker.progress("embedding", {"chunks_embedded": 32})  # 0 s after the begin: held
    assert stored() == {}
    ticker.now += 0.6
    tracker.progress("embedding", {"chunks_embedded": 64})
    assert stored() == {"chunks_embedded": 64}
    ticker.now += 0.1
    tracker.progress("embedding", {"chunks_embedded": 96})  # held, then closed with it
    assert stored() == {"chunks_embedded": 64}
    tracker.fail("embedding", "EMBEDDING_FAILED", "the model went away")
    assert stored() == {"chunks_embedded": 96}

    embedding = [e.data for e in publisher.events if e.data["name"] == "embedding"]
    assert [e["status"] for e in embedding] == ["pending", "running", "running", "failed"]
    sequences = [e.data["sequence"] for e in publisher.events]
    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)
