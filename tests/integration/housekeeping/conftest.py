"""A worker context on real parts for the housekeeping sweeps: a migrated PostgreSQL or
SQLite database, the RQ queue on the real Redis (own key prefix), milvus-lite in this
process, and helpers that lay out rows and spans as a crashed worker would leave them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from redis import Redis
from sqlalchemy import delete, update

from storage.db.migrate import upgrade_to_head
from storage.db.models import Knowledge, Span
from storage.db.repositories.chunks import NewChunk
from storage.events.base import ProgressEvent
from storage.index.milvus_index import IndexRow
from storage.queue.rq_queue import RQTaskQueue
from tests.integration.storage.conftest import empty_database_url
from tests.support.databases import REDIS_URL
from workers import task_specs
from workers.context import WorkerContext
from workers.payloads import DocumentProcessPayload
from workers.pipeline.round.spans import ROOT, STAGES
from workers.pipeline.stages.chunking import chunk_id
from workers.settings import Settings
from workers.wiring import build_context

STALE_AFTER_S = 60
MODEL_KEY = "test/housekeeping/4"
DIMENSION = 4


class RecordingPublisher:
    def __init__(self) -> None:
        self.events: list[ProgressEvent] = []

    def publish(self, event: ProgressEvent) -> None:
        self.events.append(event)


@pytest.fixture(scope="module", params=("postgresql", "sqlite"))
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with empty_database_url(request.param, tmp_path_factory.mktemp("db")) as url:
        upgrade_to_head(url)
        yield url


@pytest.fixture
def key_prefix() -> Iterator[str]:
    prefix = f"sluice-hk-{uuid.uuid4().hex[:10]}"
    yield prefix
    client = Redis.from_url(REDIS_URL)
    for key in client.scan_iter(match=f"*{prefix}*", count=1000):
        client.delete(key)
    for member in client.smembers("rq:queues"):
        if prefix.encode() in member:
            client.srem("rq:queues", member)
    client.close()


def make_settings(database_url: str, data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "mode": "full",
        "data_dir": data_dir,
        "database_url": database_url,
        "redis_url": REDIS_URL,
        "milvus_uri": str(data_dir / "milvus.db"),
        "storage_dir": data_dir / "files",
        "docreader_address": "127.0.0.1:9",
        "stale_after_s": STALE_AFTER_S,
        "summary_stale_after_s": STALE_AFTER_S,
        "max_auto_requeues": 2,
        **overrides,
    }
    return Settings(**values)


@pytest.fixture
def ctx(database_url: str, key_prefix: str, tmp_path: Path) -> Iterator[WorkerContext]:
    settings = make_settings(database_url, tmp_path, key_prefix=key_prefix)
    context = build_context(
        settings,
        queue=RQTaskQueue(REDIS_URL, key_prefix=key_prefix),
        publisher=RecordingPublisher(),
        docreader_target=settings.docreader_address,
    )
    context.index.ensure_collection(MODEL_KEY, DIMENSION)
    # Sweeps look at every row: each test starts from an empty table (spans and chunks go
    # with their knowledge).
    with context.db.session() as session:
        session.execute(delete(Knowledge))
    yield context
    context.close()


@dataclass(frozen=True)
class Scope:
    tenant_id: str
    knowledge_base_id: str


@pytest.fixture
def scope(ctx: WorkerContext) -> Scope:
    tenant = ctx.tenants.create_tenant(f"hk-{uuid.uuid4().hex[:6]}")
    kb = ctx.knowledge_bases.create(
        tenant.id,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={},
        embedding_model_key=MODEL_KEY,
        storage_backend_id="",
    )
    return Scope(tenant.id, kb.id)


def add_knowledge(ctx: WorkerContext, scope: Scope, **fields: Any) -> Knowledge:
    values: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "tenant_id": scope.tenant_id,
        "knowledge_base_id": scope.knowledge_base_id,
        "type": "file",
        "title": "doc.md",
        "file_name": "doc.md",
        "file_type": "md",
        "file_path": "local://nowhere/doc.md",
        "parse_status": "processing",
        "enable_status": "disabled",
        "summary_status": "none",
        "attempt": 1,
        **fields,
    }
    return ctx.knowledges.create(**values)


def open_round(
    ctx: WorkerContext, knowledge: Knowledge, attempt: int, *, running: str | None
) -> None:
    """Spans as SpanTracker lays them out, with ``running`` begun and those before it done."""
    root = ctx.spans.upsert(knowledge.id, attempt, ROOT, kind="root", stage="", status="running",
                            started_at=datetime.now(UTC))
    reached = False
    for stage in STAGES:
        if stage == running:
            status, reached = "running", True
        else:
            status = "pending" if reached or running is None else "done"
        ctx.spans.upsert(
            knowledge.id, attempt, stage, kind="stage", stage=stage, status=status,
            parent_id=root.id, started_at=datetime.now(UTC) if status != "pending" else None,
        )


def write_products(ctx: WorkerContext, knowledge: Knowledge, attempt: int, count: int) -> None:
    """Chunks and index rows of ``attempt``, as a worker killed mid-embedding leaves them."""
    ids = [chunk_id(knowledge.id, attempt, "text", i) for i in range(count)]
    ctx.chunks.insert_many(
        [
            NewChunk(
                id=ids[i], tenant_id=knowledge.tenant_id,
                knowledge_base_id=knowledge.knowledge_base_id, knowledge_id=knowledge.id,
                attempt=attempt, chunk_index=i, content=f"chunk {i}",
            )
            for i in range(count)
        ]
    )
    ctx.index.upsert(
        MODEL_KEY,
        [
            IndexRow(
                id=ids[i], tenant_id=knowledge.tenant_id,
                knowledge_base_id=knowledge.knowledge_base_id, knowledge_id=knowledge.id,
                chunk_id=ids[i], source_type="chunk", is_enabled=True, content=f"chunk {i}",
                keyword_text=f"chunk {i}", vector=[1.0, 0.0, 0.0, float(i)],
            )
            for i in range(count)
        ],
    )


def backdate(ctx: WorkerContext, knowledge_id: str, seconds: float) -> datetime:
    """Make the row and its spans look untouched for ``seconds`` (as after a crash)."""
    moment = datetime.now(UTC) - timedelta(seconds=seconds)
    with ctx.db.session() as session:
        session.execute(
            update(Knowledge).where(Knowledge.id == knowledge_id).values(updated_at=moment)
        )
        session.execute(update(Span).where(Span.knowledge_id == knowledge_id).values(
            updated_at=moment
        ))
    return moment


def enqueue_process(ctx: WorkerContext, knowledge: Knowledge, attempt: int) -> None:
    payload = DocumentProcessPayload(
        tenant_id=knowledge.tenant_id, knowledge_id=knowledge.id,
        knowledge_base_id=knowledge.knowledge_base_id, attempt=attempt,
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, payload))


def spans_by_name(ctx: WorkerContext, knowledge_id: str, attempt: int) -> dict[str, Any]:
    return {s.name: s for s in ctx.spans.list(knowledge_id, attempt, tenant_id=None)}
