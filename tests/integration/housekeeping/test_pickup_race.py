"""Sweep A and a worker taking a task at the same moment. A document that waited in the
queue longer than the stale threshold looks stuck from its row alone; the moment a worker
takes its task (before the worker's first heartbeat lands) must still count as queued, so
the sweep never supersedes a round that is just starting. And the round the sweep does
re-enqueue goes to the front of its queue, not behind the backlog."""

from __future__ import annotations

import threading

import pytest
from redis import Redis
from rq import Queue, SimpleWorker
from rq.job import Job

from storage.queue.rq_queue import SERIALIZER, RQTaskQueue
from tests.integration.housekeeping.conftest import (
    STALE_AFTER_S,
    Scope,
    add_knowledge,
    backdate,
    enqueue_process,
    open_round,
)
from tests.support.databases import REDIS_URL
from workers.context import WorkerContext
from workers.housekeeping.rounds import run_round

QUIET_S = STALE_AFTER_S + 600


@pytest.fixture
def redis(redis_client: Redis) -> Redis:
    """The shared Redis client, by the name these tests use."""
    return redis_client


def _default(redis: Redis, key_prefix: str) -> Queue:
    return Queue(f"{key_prefix}:default", connection=redis, serializer=SERIALIZER)


def _mark_started(redis: Redis, queue: Queue, job: Job) -> None:
    """What a worker does right after taking a job: RQ's own bookkeeping."""
    worker = SimpleWorker([queue], connection=redis, serializer=SERIALIZER)
    worker.prepare_job_execution(job, remove_from_intermediate_queue=True)


def _row(ctx: WorkerContext, knowledge_id: str) -> tuple[str, int]:
    fresh = ctx.knowledges.get(knowledge_id, None)
    assert fresh is not None
    return fresh.parse_status, fresh.attempt


def test_a_long_queued_round_a_worker_takes_is_never_superseded(
    ctx: WorkerContext, scope: Scope, key_prefix: str, redis: Redis
) -> None:
    row = add_knowledge(ctx, scope, parse_status="pending")
    enqueue_process(ctx, row, 1)
    backdate(ctx, row.id, QUIET_S)  # it waited in the queue past the threshold
    queue = _default(redis, key_prefix)

    # A worker on this one queue moves the job to RQ's intermediate list...
    taken = Queue.dequeue_any([queue], None, connection=redis, serializer=SERIALIZER)
    assert taken is not None
    job, _ = taken
    assert run_round(ctx).stalled["queued"] == 1
    # ... then marks it started; its handler has not written a heartbeat yet.
    _mark_started(redis, queue, job)
    assert run_round(ctx).stalled["queued"] == 1
    assert _row(ctx, row.id) == ("pending", 1)

    # The handler's first write is the guarded move to processing of its own attempt.
    assert ctx.knowledges.transition(
        row.id, from_statuses=("pending", "processing"), to_status="processing", attempt=1
    )
    assert _row(ctx, row.id) == ("processing", 1)


def test_a_worker_on_several_queues_is_seen_taking_the_task(
    ctx: WorkerContext, scope: Scope, key_prefix: str, redis: Redis
) -> None:
    """Listening on several queues, RQ pops the job off its list (it is then "queued" in no
    list) and marks it started in its next round trip."""
    row = add_knowledge(ctx, scope, parse_status="pending")
    enqueue_process(ctx, row, 1)
    backdate(ctx, row.id, QUIET_S)
    queue = _default(redis, key_prefix)
    other = Queue(f"{key_prefix}:low", connection=redis, serializer=SERIALIZER)
    taken = Queue.dequeue_any([queue, other], None, connection=redis, serializer=SERIALIZER)
    assert taken is not None
    starting = threading.Timer(0.1, _mark_started, (redis, queue, taken[0]))
    starting.start()
    try:
        assert run_round(ctx).stalled["queued"] == 1
    finally:
        starting.join()
    assert _row(ctx, row.id) == ("pending", 1)


def test_a_task_taken_longer_ago_than_the_pickup_grace_no_longer_counts(
    ctx: WorkerContext, scope: Scope, key_prefix: str, redis: Redis
) -> None:
    """The worker took the task and died before its first heartbeat."""
    ctx.queue.close()
    ctx.queue = RQTaskQueue(REDIS_URL, key_prefix=key_prefix, pickup_grace_s=0.2)
    row = add_knowledge(ctx, scope, parse_status="processing")
    enqueue_process(ctx, row, 1)
    open_round(ctx, row, 1, running="docreader")
    backdate(ctx, row.id, QUIET_S)
    queue = _default(redis, key_prefix)
    taken = Queue.dequeue_any([queue], None, connection=redis, serializer=SERIALIZER)
    assert taken is not None
    _mark_started(redis, queue, taken[0])
    threading.Event().wait(0.3)

    assert run_round(ctx).stalled["requeued"] == 1
    assert _row(ctx, row.id) == ("pending", 2)


def test_a_recovered_round_goes_to_the_front_of_its_queue(
    ctx: WorkerContext, scope: Scope, key_prefix: str, redis: Redis
) -> None:
    backlog = [add_knowledge(ctx, scope, parse_status="pending") for _ in range(2)]
    for waiting in backlog:
        enqueue_process(ctx, waiting, 1)
    # Its queued task was lost (Redis restarted empty, say).
    stuck = add_knowledge(ctx, scope, parse_status="pending")
    backdate(ctx, stuck.id, QUIET_S)

    assert run_round(ctx).stalled["requeued"] == 1

    assert isinstance(ctx.queue, RQTaskQueue)
    first = redis.lindex(_default(redis, key_prefix).key, 0)
    assert first == ctx.queue.rq_job_id(f"document-process-{stuck.id}-2").encode()
    assert redis.llen(_default(redis, key_prefix).key) == 3
