"""The task heartbeat of RQTaskQueue with real RQ worker processes: a task running longer
than its heartbeat TTL is still a live task; one whose worker was SIGKILLed stops being one
within a TTL, and once its record is dropped its job id can be queued again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.queue.rq_queue import RQTaskQueue
from tests.integration.queue.contract import events, spec
from tests.support.databases import REDIS_URL
from tests.support.rq_workers import WorkerProcesses
from tests.support.waiting import wait_until

TTL_S = 1.0


@pytest.fixture
def queue(key_prefix: str) -> Iterator[RQTaskQueue]:
    task_queue = RQTaskQueue(REDIS_URL, key_prefix=key_prefix, heartbeat_ttl_s=TTL_S)
    yield task_queue
    task_queue.close()


def test_a_task_running_past_its_heartbeat_ttl_is_alive(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    workers.start(key_prefix, burst=False, simple=True)
    queue.enqueue(spec("sleep_then_record", {"log": str(log), "sleep_s": 4 * TTL_S}, group="g"))
    wait_until(lambda: len(events(log, "started")) == 1)
    time.sleep(2 * TTL_S)  # past the TTL of its first beat: only renewals keep it alive

    assert queue.has_live_task("g")
    assert queue.forget_dead_tasks("g") == 0
    wait_until(lambda: len(events(log, "done")) == 1)
    wait_until(lambda: not queue.has_live_task("g"))


def test_a_task_whose_worker_was_killed_is_dead_and_can_be_queued_again(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    # A simple worker runs the task in its own process: the kill takes the worker with it.
    worker = workers.start(key_prefix, burst=False, simple=True)
    task = spec("kill_own_process", {"log": str(log)}, group="g", job_id="victim")
    queue.enqueue(task)
    worker.wait(30)
    assert len(events(log, "attempt")) == 1

    wait_until(lambda: not queue.has_live_task("g"), timeout=10 * TTL_S)
    assert queue.forget_dead_tasks("g") == 1
    assert queue.forget_dead_tasks("g") == 0
    queue.enqueue(task)
    assert queue.has_live_task("g")
