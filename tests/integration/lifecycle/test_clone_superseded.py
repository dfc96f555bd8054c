"""A kb:clone_knowledge try superseded by a housekeeping requeue, on PostgreSQL (a table lock
holds the try at its chunk write, deterministically) with milvus-lite: once the job was
queued again the frozen try writes nothing more (its draft is not completed, its item not
ended), and the next try deletes that half-made clone through the delete chain and starts
over: one completed clone of the source, with the source's chunks and index rows, and
nothing left of the half-made one."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.payloads import KbCloneKnowledgePayload
from core.statuses import JobStatus, ParseStatus
from storage.db.migrate import upgrade_to_head
from storage.db.models import KbCloneJob, Knowledge
from storage.db.repositories.chunks import NewChunk
from storage.db.repositories.clone_jobs import CloneJobRepository, ClonePlan
from storage.db.repositories.maintenance_jobs import MaintenanceJobRepository
from storage.index.records import IndexRow
from tests.e2e.crash_support import held_lock, wait_for_lock_waiter
from tests.support.databases import postgres_database
from tests.support.worker_context import local_settings, worker_context
from workers.clone.knowledge_clone import clone_knowledge
from workers.context import WorkerContext

KEY = "test/clone/4"
CHUNKS = 3


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    with postgres_database() as url:
        upgrade_to_head(url)
        yield url


@pytest.fixture
def ctx(pg_url: str, tmp_path: Path) -> Iterator[WorkerContext]:
    with worker_context(local_settings(pg_url, tmp_path)) as context:
        yield context


def _source(ctx: WorkerContext) -> tuple[Knowledge, str]:
    """A completed source knowledge with chunks and index rows; the target's id."""
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}")
    source = ctx.knowledge_bases.create(tenant.id, "source", embedding_model_key=KEY).id
    target = ctx.knowledge_bases.create(tenant.id, "target", embedding_model_key=KEY).id
    row = ctx.knowledges.create(
        tenant_id=tenant.id, knowledge_base_id=source, parse_status="completed", title="heron"
    )
    ctx.chunks.insert_many(
        [NewChunk(tenant.id, source, row.id, i, f"heron {i}") for i in range(CHUNKS)]
    )
    stored = ctx.chunks.list_by_knowledge(row.id, 10, tenant_id=None)[0]
    rows = [
        IndexRow(c.id, tenant.id, source, row.id, c.id, "chunk", True, c.content, c.content, v)
        for c, v in ((c, [1.0, float(i), 0.0, 0.5]) for i, c in enumerate(stored))
    ]
    ctx.index.upsert(KEY, rows)
    return row, target


def test_a_superseded_try_stops_and_the_next_replaces_its_half_made_clone(
    ctx: WorkerContext, pg_url: str
) -> None:
    row, target = _source(ctx)
    jobs = CloneJobRepository(ctx.db)
    job = jobs.create(row.tenant_id, row.knowledge_base_id, target)
    assert jobs.start(job.id, ClonePlan([row.id], []), 0) is not None
    payload = KbCloneKnowledgePayload(job.id, row.id)
    errors: list[BaseException] = []

    def frozen_try() -> None:
        try:
            clone_knowledge(ctx, payload)
        except BaseException as exc:  # the test's thread reports it
            errors.append(exc)

    with held_lock(pg_url, "LOCK TABLE chunks IN SHARE MODE") as release:
        first = threading.Thread(target=frozen_try)
        first.start()
        wait_for_lock_waiter(pg_url, "chunks")
        # Its worker looked dead: housekeeping queued the job again.
        seen = jobs.get(job.id, None)
        assert seen is not None
        assert MaintenanceJobRepository(ctx.db, KbCloneJob).requeued(seen)
        release()
        first.join(60)
    assert not first.is_alive() and errors == []

    half_made = jobs.clone_of(target, row.id)
    assert half_made is not None and half_made.parse_status == ParseStatus.DRAFT
    ended = jobs.get(job.id, None)
    assert ended is not None and (ended.status, ended.done) == (JobStatus.PROCESSING, 0)

    clone_knowledge(ctx, payload)  # the requeued try

    clone = jobs.clone_of(target, row.id)
    assert clone is not None and clone.id != half_made.id
    assert clone.parse_status == ParseStatus.COMPLETED
    assert ctx.chunks.count_by_knowledge(clone.id) == CHUNKS
    assert len(ctx.index.ids_for_knowledge(KEY, clone.id)) == CHUNKS
    assert ctx.knowledges.get(half_made.id, None) is None
    assert ctx.chunks.count_by_knowledge(half_made.id) == 0
    assert ctx.index.ids_for_knowledge(KEY, half_made.id) == []
    finished = jobs.get(job.id, None)
    assert finished is not None and (finished.status, finished.done) == (JobStatus.COMPLETED, 1)
