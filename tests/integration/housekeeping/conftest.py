"""A worker context on real parts for the housekeeping sweeps: the shared migrated PostgreSQL
or SQLite database, the RQ queue on the real Redis (own key prefix), milvus-lite in this
process, and helpers that lay out rows and spans as a crashed worker would leave them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import pytest
from sqlalchemy import delete, update

from core.clock import SYSTEM_CLOCK, Clock, ManualClock
from core.payloads import DocumentProcessPayload
from storage.db.models import Knowledge, Span
from storage.db.repositories.chunks import NewChunk
from storage.index.milvus_index import IndexRow
from storage.queue.rq_queue import RQTaskQueue
from tests.support.databases import REDIS_URL
from tests.support.worker_context import RecordingPublisher, worker_context
from workers import task_specs
from workers.context import WorkerContext
from workers.pipeline.round.spans import ROOT, STAGES
from workers.pipeline.stages.chunking import chunk_id
from workers.settings import Settings
from workers.settings_groups import (
    DocreaderSettings,
    HousekeepingSettings,
    QueueSettings,
    StorageSettings,
)

STALE_AFTER_S = 60
MODEL_KEY = "test/housekeeping/4"
DIMENSION = 4


def make_settings(
    database_url: str,
    data_dir: Path,
    *,
    mode: Literal["lite", "full"] = "full",
    key_prefix: str = "sluice",
    **storage: Any,
) -> Settings:
    """Full-mode settings over ``database_url`` with the short thresholds these tests use;
    ``storage`` adds StorageSettings fields (backends, say)."""
    return Settings(
        mode=mode,
        data_dir=data_dir,
        storage=StorageSettings(
            database_url=database_url,
            milvus_uri=str(data_dir / "milvus.db"),
            storage_dir=data_dir / "files",
            **storage,
        ),
        queue=QueueSettings(redis_url=REDIS_URL, key_prefix=key_prefix),
        docreader=DocreaderSettings(docreader_address="127.0.0.1:9"),
        housekeeping=HousekeepingSettings(
            stale_after_s=STALE_AFTER_S, summary_stale_after_s=STALE_AFTER_S, max_auto_requeues=2
        ),
    )


@pytest.fixture
def ctx(
    database_url: str, key_prefix: str, tmp_path: Path, clock: ManualClock
) -> Iterator[WorkerContext]:
    with housekeeping_context(database_url, tmp_path, key_prefix, clock=clock) as context:
        context.index.ensure_collection(MODEL_KEY, DIMENSION)
        # Sweeps look at every row: each test starts from an empty table (spans and chunks
        # go with their knowledge).
        with context.db.session() as session:
            session.execute(delete(Knowledge))
        yield context


def housekeeping_context(
    database_url: str,
    data_dir: Path,
    key_prefix: str,
    *,
    clock: Clock = SYSTEM_CLOCK,
    **overrides: Any,
) -> AbstractContextManager[WorkerContext]:
    """Full mode's parts: the RQ queue on the real Redis under ``key_prefix``."""
    return worker_context(
        make_settings(database_url, data_dir, key_prefix=key_prefix, **overrides),
        queue=RQTaskQueue(REDIS_URL, key_prefix=key_prefix),
        publisher=RecordingPublisher(),
        clock=clock,
    )


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
    root = ctx.spans.upsert(
        knowledge.id,
        attempt,
        ROOT,
        kind="root",
        stage="",
        status="running",
        started_at=datetime.now(UTC),
    )
    reached = False
    for stage in STAGES:
        if stage == running:
            status, reached = "running", True
        else:
            status = "pending" if reached or running is None else "done"
        ctx.spans.upsert(
            knowledge.id,
            attempt,
            stage,
            kind="stage",
            stage=stage,
            status=status,
            parent_id=root.id,
            started_at=datetime.now(UTC) if status != "pending" else None,
        )


def write_products(ctx: WorkerContext, knowledge: Knowledge, attempt: int, count: int) -> None:
    """Chunks and index rows of ``attempt``, as a worker killed mid-embedding leaves them."""
    ids = [chunk_id(knowledge.id, attempt, "text", i) for i in range(count)]
    ctx.chunks.insert_many(
        [
            NewChunk(
                id=ids[i],
                tenant_id=knowledge.tenant_id,
                knowledge_base_id=knowledge.knowledge_base_id,
                knowledge_id=knowledge.id,
                attempt=attempt,
                chunk_index=i,
                content=f"chunk {i}",
            )
            for i in range(count)
        ]
    )
    ctx.index.upsert(
        MODEL_KEY,
        [
            IndexRow(
                id=ids[i],
                tenant_id=knowledge.tenant_id,
                knowledge_base_id=knowledge.knowledge_base_id,
                knowledge_id=knowledge.id,
                chunk_id=ids[i],
                source_type="chunk",
                is_enabled=True,
                content=f"chunk {i}",
                keyword_text=f"chunk {i}",
                vector=[1.0, 0.0, 0.0, float(i)],
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
        session.execute(
            update(Span).where(Span.knowledge_id == knowledge_id).values(updated_at=moment)
        )
    return moment


def enqueue_process(ctx: WorkerContext, knowledge: Knowledge, attempt: int) -> None:
    payload = DocumentProcessPayload(
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        knowledge_base_id=knowledge.knowledge_base_id,
        attempt=attempt,
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, payload))


def spans_by_name(ctx: WorkerContext, knowledge_id: str, attempt: int) -> dict[str, Any]:
    return {s.name: s for s in ctx.spans.list(knowledge_id, attempt, tenant_id=None)}
