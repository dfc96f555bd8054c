"""Sweep M on real parts: an FAQ import whose RQ task was taken by a worker that then died
(RQ's record says "started", no heartbeat) is queued again at the front; one with a live
heartbeat, or waiting, is left alone; two housekeepers requeue it once; past its budget it
fails saying why; the queue's retries and the requeues share that budget; a superseded
attempt can count no more batches."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from redis import Redis
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.utils import utcformat
from sqlalchemy import delete, update

from core.payloads import FaqImportPayload, KnowledgeMovePayload
from storage.db.models import FaqImportJob, KbCloneJob, Knowledge, KnowledgeMoveJob
from storage.db.repositories.clone_jobs import CloneJobRepository
from storage.db.repositories.faq_imports import BatchCounts, FaqImportRepository
from storage.db.repositories.knowledge_moves import KnowledgeMoveRepository
from storage.db.repositories.maintenance_jobs import MaintenanceJobRepository
from storage.queue.rq_liveness import alive_key
from storage.queue.rq_queue import SERIALIZER, RQTaskQueue
from tests.integration.housekeeping.conftest import Scope
from tests.support.databases import REDIS_URL
from workers import task_specs
from workers.context import WorkerContext
from workers.housekeeping.maintenance import sweep_maintenance

HEARTBEAT_TTL_S = 5.0


@pytest.fixture
def jobs_ctx(ctx: WorkerContext, key_prefix: str) -> WorkerContext:
    """The sweep looks at every job row: each test starts from empty job tables."""
    with ctx.db.session() as session:
        for model in (FaqImportJob, KnowledgeMoveJob, KbCloneJob):
            session.execute(delete(model))
    ctx.queue.close()
    ctx.queue = RQTaskQueue(REDIS_URL, key_prefix=key_prefix, heartbeat_ttl_s=HEARTBEAT_TTL_S)
    return ctx


def _import(
    ctx: WorkerContext, scope: Scope, *, status: str, recoveries: int = 0, attempts: int = 0
) -> str:
    job_id = str(uuid.uuid4())
    payload = FaqImportPayload(job_id, scope.tenant_id, scope.knowledge_base_id, rows=[])
    FaqImportRepository(ctx.db).start(
        id=job_id,
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        task_payload=payload.to_dict(),
    )
    _quiet(ctx, job_id, status=status, recoveries=recoveries, attempts=attempts)
    return job_id


def _quiet(ctx: WorkerContext, job_id: str, **values: object) -> None:
    """The row as a killed worker leaves it: untouched for a while."""
    quiet = datetime.now(UTC) - timedelta(minutes=10)
    with ctx.db.session() as session:
        session.execute(
            update(FaqImportJob).where(FaqImportJob.id == job_id).values(**values, updated_at=quiet)
        )


def _queue(redis: Redis, key_prefix: str) -> Queue:
    return Queue(f"{key_prefix}:low", connection=redis, serializer=SERIALIZER)


def _taken_by_a_worker_that_died(
    ctx: WorkerContext,
    redis: Redis,
    key_prefix: str,
    job_id: str,
) -> str:
    """Enqueued, taken and marked started by a worker, which then wrote no heartbeat."""
    ctx.queue.enqueue(task_specs.faq_import(_payload(ctx, job_id)))
    queue = _queue(redis, key_prefix)
    taken = Queue.dequeue_any([queue], None, connection=redis, serializer=SERIALIZER)
    assert taken is not None
    job = taken[0]
    SimpleWorker([queue], connection=redis, serializer=SERIALIZER).prepare_job_execution(
        job, remove_from_intermediate_queue=True
    )
    long_ago = datetime.now(UTC) - timedelta(seconds=10 * HEARTBEAT_TTL_S)
    redis.hset(Job.key_for(job.id), "started_at", utcformat(long_ago))
    return str(job.id)


def _payload(ctx: WorkerContext, job_id: str) -> FaqImportPayload:
    job = FaqImportRepository(ctx.db).get(None, job_id)
    assert job is not None and job.task_payload is not None
    return FaqImportPayload.from_dict(job.task_payload)


def _row(ctx: WorkerContext, job_id: str) -> FaqImportJob:
    job = FaqImportRepository(ctx.db).get(None, job_id)
    assert job is not None
    return job


def _sweep(ctx: WorkerContext) -> dict[str, int]:
    before = datetime.now(UTC) - timedelta(seconds=HEARTBEAT_TTL_S)
    return {str(k): v for k, v in sweep_maintenance(ctx, before).items()}


def test_a_killed_import_is_queued_again_at_the_front(
    jobs_ctx: WorkerContext, scope: Scope, key_prefix: str, redis_client: Redis
) -> None:
    job_id = _import(jobs_ctx, scope, status="processing")
    rq_id = _taken_by_a_worker_that_died(jobs_ctx, redis_client, key_prefix, job_id)
    _queue(redis_client, key_prefix).enqueue_call("builtins.print", job_id="someone-else")

    assert _sweep(jobs_ctx) == {"requeued": 1}

    row = _row(jobs_ctx, job_id)
    assert (row.status, row.recoveries) == ("processing", 1)
    assert _queue(redis_client, key_prefix).job_ids[0] == rq_id
    assert redis_client.hget(Job.key_for(rq_id), "status") == b"queued"
    # The requeue wrote the row: the next round leaves it alone; once it is quiet again,
    # its task is found waiting.
    assert _sweep(jobs_ctx) == {}
    _quiet(jobs_ctx, job_id)
    assert _sweep(jobs_ctx) == {"alive": 1}
    assert _queue(redis_client, key_prefix).job_ids.count(rq_id) == 1


def test_a_task_with_a_fresh_heartbeat_is_alive(
    jobs_ctx: WorkerContext, scope: Scope, key_prefix: str, redis_client: Redis
) -> None:
    job_id = _import(jobs_ctx, scope, status="processing")
    rq_id = _taken_by_a_worker_that_died(jobs_ctx, redis_client, key_prefix, job_id)
    redis_client.set(alive_key(key_prefix, rq_id), b"1", px=int(HEARTBEAT_TTL_S * 1000))

    assert _sweep(jobs_ctx) == {"alive": 1}
    assert _row(jobs_ctx, job_id).recoveries == 0


def test_a_pending_import_whose_task_is_gone_is_queued_again(
    jobs_ctx: WorkerContext, scope: Scope, key_prefix: str, redis_client: Redis
) -> None:
    job_id = _import(jobs_ctx, scope, status="pending")

    assert _sweep(jobs_ctx) == {"requeued": 1}
    assert jobs_ctx.queue.has_live_task(task_specs.faq_import_group(job_id))


def test_two_housekeepers_that_read_the_same_row_requeue_it_once(
    jobs_ctx: WorkerContext, scope: Scope
) -> None:
    _import(jobs_ctx, scope, status="processing")
    repo = MaintenanceJobRepository(jobs_ctx.db, FaqImportJob)
    before = datetime.now(UTC)
    first, second = repo.unattended(before), repo.unattended(before)

    assert repo.requeued(first[0])
    assert not repo.requeued(second[0])
    assert not repo.fail(second[0], "stale read")
    assert _row(jobs_ctx, first[0].id).recoveries == 1


def test_past_its_budget_a_killed_import_fails_saying_why(
    jobs_ctx: WorkerContext, scope: Scope, key_prefix: str, redis_client: Redis
) -> None:
    job_id = _import(jobs_ctx, scope, status="processing", recoveries=task_specs.FAQ_IMPORT_RETRIES)
    rq_id = _taken_by_a_worker_that_died(jobs_ctx, redis_client, key_prefix, job_id)

    assert _sweep(jobs_ctx) == {"failed": 1}

    row = _row(jobs_ctx, job_id)
    assert row.status == "failed" and row.finished_at is not None
    assert row.error_message == (
        "the import was stopped: its worker was killed or lost 6 times (no task heartbeat "
        "for 60 s), and all of its 6 attempts are used (0 started, queued again 5 times)"
    )
    assert not redis_client.exists(Job.key_for(rq_id))
    assert _sweep(jobs_ctx) == {}


def _retries_left(redis: Redis, rq_id: str) -> int:
    return int(Job.fetch(rq_id, connection=redis, serializer=SERIALIZER).retries_left or 0)


def test_a_requeue_gets_only_the_attempts_the_queue_retries_left(
    jobs_ctx: WorkerContext, scope: Scope, key_prefix: str, redis_client: Redis
) -> None:
    # Two attempts failed and were retried by RQ; the third one's worker was killed.
    job_id = _import(jobs_ctx, scope, status="processing", attempts=3)
    rq_id = _taken_by_a_worker_that_died(jobs_ctx, redis_client, key_prefix, job_id)
    assert _retries_left(redis_client, rq_id) == task_specs.FAQ_IMPORT_RETRIES

    assert _sweep(jobs_ctx) == {"requeued": 1}

    # 6 attempts in all: 3 used, the requeued one and 2 retries of it left.
    assert _retries_left(redis_client, rq_id) == 2


def test_retries_and_requeues_of_one_import_start_six_attempts_in_all(
    jobs_ctx: WorkerContext, scope: Scope, key_prefix: str, redis_client: Redis
) -> None:
    """Every attempt starts as the runner starts it (``begin``) and its worker dies; each
    requeue's own retries would be attempts too, so they are what is left of the six."""
    job_id = _import(jobs_ctx, scope, status="pending")
    imports = FaqImportRepository(jobs_ctx.db)
    rq_id = _taken_by_a_worker_that_died(jobs_ctx, redis_client, key_prefix, job_id)
    started = 0
    while _row(jobs_ctx, job_id).status != "failed":
        assert imports.begin(job_id) is not None
        started += 1
        assert started + _retries_left(redis_client, rq_id) == task_specs.FAQ_IMPORT_RETRIES + 1
        _quiet(jobs_ctx, job_id)
        outcome = _sweep(jobs_ctx)
        if outcome == {"requeued": 1}:
            rq_id = _taken_by_a_worker_that_died(jobs_ctx, redis_client, key_prefix, job_id)
        else:
            assert outcome == {"failed": 1}

    assert started == task_specs.FAQ_IMPORT_RETRIES + 1
    row = _row(jobs_ctx, job_id)
    assert (row.attempts, row.recoveries) == (6, 5)
    assert row.error_message == (
        "the import was stopped: its worker was killed or lost 6 times (no task heartbeat "
        "for 60 s), and all of its 6 attempts are used (6 started, queued again 5 times)"
    )


def test_an_import_whose_attempts_the_queue_used_up_fails_at_its_first_death(
    jobs_ctx: WorkerContext, scope: Scope, key_prefix: str, redis_client: Redis
) -> None:
    job_id = _import(jobs_ctx, scope, status="processing", attempts=6)
    _taken_by_a_worker_that_died(jobs_ctx, redis_client, key_prefix, job_id)

    assert _sweep(jobs_ctx) == {"failed": 1}
    assert _row(jobs_ctx, job_id).error_message == (
        "the import was stopped: its worker was killed or lost once (no task heartbeat for "
        "60 s), and all of its 6 attempts are used (6 started, queued again 0 times)"
    )


def test_a_superseded_attempt_counts_no_more_batches(jobs_ctx: WorkerContext, scope: Scope) -> None:
    job_id = _import(jobs_ctx, scope, status="processing")
    imports = FaqImportRepository(jobs_ctx.db)
    running = imports.begin(job_id)  # the attempt that froze
    assert running is not None and running.recoveries == 0
    repo = MaintenanceJobRepository(jobs_ctx.db, FaqImportJob)
    assert repo.requeued(repo.unattended(datetime.now(UTC))[0])

    assert not imports.record_batch(
        job_id, processed_before=0, recoveries=0, rows=[], counts=BatchCounts(), writes=None
    )
    assert imports.record_batch(
        job_id, processed_before=0, recoveries=1, rows=[], counts=BatchCounts(), writes=None
    )


def _backdate(
    ctx: WorkerContext,
    model: type[KnowledgeMoveJob] | type[KbCloneJob],
    job_id: str,
    **values: object,
) -> None:
    quiet = datetime.now(UTC) - timedelta(minutes=10)
    with ctx.db.session() as session:
        session.execute(update(model).where(model.id == job_id).values(**values, updated_at=quiet))


def test_a_clone_whose_tasks_are_gone_has_its_plan_queued_again(
    jobs_ctx: WorkerContext, scope: Scope
) -> None:
    job = CloneJobRepository(jobs_ctx.db).create(scope.tenant_id, scope.knowledge_base_id, "t")
    _backdate(jobs_ctx, KbCloneJob, job.id)

    assert _sweep(jobs_ctx) == {"requeued": 1}
    assert jobs_ctx.queue.has_live_task(task_specs.kb_clone_group(job.id))


def test_a_move_past_its_budget_fails_and_is_settled(jobs_ctx: WorkerContext, scope: Scope) -> None:
    moves = KnowledgeMoveRepository(jobs_ctx.db)
    job = moves.create_job(
        tenant_id=scope.tenant_id,
        source_knowledge_base_id=scope.knowledge_base_id,
        target_knowledge_base_id=scope.knowledge_base_id,
        mode="reuse_vectors",
        knowledge_ids=[],
    )
    payload = KnowledgeMovePayload(
        job.id, scope.knowledge_base_id, scope.knowledge_base_id, "reuse_vectors", "m", [], []
    )
    moves.keep_payload(job.id, payload.to_dict())
    _backdate(
        jobs_ctx, KnowledgeMoveJob, job.id, status="processing", recoveries=task_specs.BATCH_RETRIES
    )

    assert _sweep(jobs_ctx) == {"failed": 1}
    ended = moves.get_job(job.id, None)
    assert ended is not None and ended.status == "failed"
    assert ended.error_message == (
        "the move was stopped: its worker was killed or lost 4 times (no task heartbeat "
        "for 60 s), and all of its 4 attempts are used (0 started, queued again 3 times)"
    )


# ---- jobs made before migration 0016: their payload built again from the row -------------


def _queued_payload(redis: Redis, key_prefix: str) -> dict[str, object]:
    """The payload of the one task waiting on the maintenance queue."""
    (rq_id,) = _queue(redis, key_prefix).job_ids
    job = Job.fetch(rq_id, connection=redis, serializer=SERIALIZER)
    payload = job.args[1]
    assert isinstance(payload, dict)
    return payload


def test_an_old_import_of_stored_rows_is_queued_again_with_them(
    jobs_ctx: WorkerContext, scope: Scope, key_prefix: str, redis_client: Redis
) -> None:
    job_id = _import(jobs_ctx, scope, status="processing")
    _quiet(jobs_ctx, job_id, task_payload=None, source_path="faq-imports/x.jsonl", dry_run=True)

    assert _sweep(jobs_ctx) == {"requeued": 1}
    assert (
        _queued_payload(redis_client, key_prefix)
        == FaqImportPayload(
            job_id,
            scope.tenant_id,
            scope.knowledge_base_id,
            dry_run=True,
            rows_path="faq-imports/x.jsonl",
        ).to_dict()
    )


def test_an_old_import_whose_rows_were_in_its_lost_task_fails_saying_so(
    jobs_ctx: WorkerContext, scope: Scope
) -> None:
    job_id = _import(jobs_ctx, scope, status="processing")
    _quiet(jobs_ctx, job_id, task_payload=None)

    assert _sweep(jobs_ctx) == {"failed": 1}
    assert _row(jobs_ctx, job_id).error_message == (
        "the import was stopped: its task was lost and cannot be queued again"
    )


def _old_move(ctx: WorkerContext, scope: Scope, mode: str) -> tuple[str, list[Knowledge], str]:
    """A move made before 0016 (no payload) of two knowledges; its id, them, the target."""
    target = ctx.knowledge_bases.create(scope.tenant_id, "target", embedding_model_key="m/2").id
    rows = [
        ctx.knowledges.create(
            tenant_id=scope.tenant_id,
            knowledge_base_id=scope.knowledge_base_id,
            parse_status="completed",
            attempt=n,
        )
        for n in (1, 3)
    ]
    job = KnowledgeMoveRepository(ctx.db).create_job(
        tenant_id=scope.tenant_id,
        source_knowledge_base_id=scope.knowledge_base_id,
        target_knowledge_base_id=target,
        mode=mode,
        knowledge_ids=[row.id for row in rows],
    )
    _backdate(ctx, KnowledgeMoveJob, job.id, status="processing")
    return job.id, rows, target


def test_an_old_move_is_queued_again_with_its_knowledges_and_their_attempts(
    jobs_ctx: WorkerContext, scope: Scope, key_prefix: str, redis_client: Redis
) -> None:
    job_id, rows, target = _old_move(jobs_ctx, scope, "reparse")

    assert _sweep(jobs_ctx) == {"requeued": 1}
    source = jobs_ctx.knowledge_bases.get(None, scope.knowledge_base_id)
    assert source is not None
    assert (
        _queued_payload(redis_client, key_prefix)
        == KnowledgeMovePayload(
            job_id,
            scope.knowledge_base_id,
            target,
            "reparse",
            source.embedding_model_key,
            [row.id for row in rows],
            [1, 3],
        ).to_dict()
    )


def test_an_old_reparse_move_past_a_knowledge_is_failed_not_guessed(
    jobs_ctx: WorkerContext, scope: Scope
) -> None:
    job_id, rows, target = _old_move(jobs_ctx, scope, "reparse")
    KnowledgeMoveRepository(jobs_ctx.db).move_rows(rows[0].id, scope.knowledge_base_id, target)

    assert _sweep(jobs_ctx) == {"failed": 1}
    ended = KnowledgeMoveRepository(jobs_ctx.db).get_job(job_id, None)
    assert ended is not None and ended.error_message == (
        "the move was stopped: its task was lost and cannot be queued again"
    )
