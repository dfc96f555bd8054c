"""A knowledge move's task run again and given up, on PostgreSQL and SQLite with milvus-lite:
a second run moves nothing twice and duplicates no index row; a move whose task gave up
after relabelling the rows but before its commit point leaves the knowledge wholly in the
source (its index rows back under the source), and the job failed with the reason."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.move_modes import MoveMode
from core.payloads import KnowledgeMovePayload
from storage.db.models import Knowledge
from storage.db.repositories.chunks import NewChunk
from storage.db.repositories.knowledge_moves import KnowledgeMoveRepository
from storage.index.records import IndexRow
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext
from workers.lifecycle.move.index_rows import relabel_index_rows
from workers.lifecycle.move.job import give_up, run_move

KEY = "test/move/4"


@pytest.fixture
def ctx(database_url: str, tmp_path: Path) -> Iterator[WorkerContext]:
    with worker_context(local_settings(database_url, tmp_path)) as context:
        yield context


def _setup(ctx: WorkerContext) -> tuple[Knowledge, str, str]:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}")
    source = ctx.knowledge_bases.create(tenant.id, "source", embedding_model_key=KEY).id
    target = ctx.knowledge_bases.create(tenant.id, "target", embedding_model_key=KEY).id
    row = ctx.knowledges.create(
        tenant_id=tenant.id, knowledge_base_id=source, parse_status="completed"
    )
    chunks = [NewChunk(tenant.id, source, row.id, i, f"heron {i}") for i in range(3)]
    ctx.chunks.insert_many(chunks)
    stored = ctx.chunks.list_by_knowledge(row.id, 10, tenant_id=None)[0]
    ctx.index.upsert(
        KEY,
        [
            IndexRow(
                c.id,
                tenant.id,
                source,
                row.id,
                c.id,
                "chunk",
                True,
                c.content,
                c.content,
                [1.0, float(i), 0.0, 0.5],
            )
            for i, c in enumerate(stored)
        ],
    )
    return row, source, target


def _job(ctx: WorkerContext, row: Knowledge, source: str, target: str) -> KnowledgeMovePayload:
    job = KnowledgeMoveRepository(ctx.db).create_job(
        tenant_id=row.tenant_id,
        source_knowledge_base_id=source,
        target_knowledge_base_id=target,
        mode=MoveMode.REUSE_VECTORS,
        knowledge_ids=[row.id],
    )
    return KnowledgeMovePayload(
        job.id, source, target, MoveMode.REUSE_VECTORS, KEY, [row.id], [row.attempt]
    )


def _kb_of_rows(ctx: WorkerContext, row: Knowledge, kb_ids: list[str]) -> list[str]:
    """The knowledge base of each of its rows a search over ``kb_ids`` finds."""
    hits = ctx.index.search_dense(
        KEY, [1.0, 1.0, 0.0, 0.5], tenant_ids=[row.tenant_id], knowledge_base_ids=kb_ids, top_k=50
    )
    return sorted(h.knowledge_base_id for h in hits if h.knowledge_id == row.id)


def test_a_retried_move_moves_once(ctx: WorkerContext) -> None:
    row, source, target = _setup(ctx)
    payload = _job(ctx, row, source, target)
    run_move(ctx, payload)
    KnowledgeMoveRepository(ctx.db).record(payload.job_id, done=0, failures={}, status="processing")
    run_move(ctx, payload)  # as a retried try would, after the first one's end was lost
    moved = ctx.knowledges.get(row.id, None)
    assert moved is not None and moved.knowledge_base_id == target
    assert ctx.index.count(KEY, row.id) == 3
    assert _kb_of_rows(ctx, row, [source, target]) == [target] * 3
    job = KnowledgeMoveRepository(ctx.db).get_job(payload.job_id, None)
    assert job is not None and (job.status, job.done, job.failed) == ("completed", 1, 0)
    # The try that ran counts against the job's attempt budget (workers.housekeeping
    # .maintenance); the second found the job ended and is no attempt.
    assert job.attempts == 1


def test_a_move_given_up_before_its_commit_point_stays_in_the_source(ctx: WorkerContext) -> None:
    row, source, target = _setup(ctx)
    payload = _job(ctx, row, source, target)
    relabel_index_rows(ctx, KEY, row, target)  # the try got this far, then died
    assert _kb_of_rows(ctx, row, [source, target]) == [target] * 3
    give_up(ctx, payload, "worker killed")
    kept = ctx.knowledges.get(row.id, None)
    assert kept is not None and kept.knowledge_base_id == source
    assert _kb_of_rows(ctx, row, [source, target]) == [source] * 3
    assert ctx.index.count(KEY, row.id) == 3
    job = KnowledgeMoveRepository(ctx.db).get_job(payload.job_id, None)
    assert job is not None and job.status == "failed"
    assert job.error_message == "the move failed: worker killed"
