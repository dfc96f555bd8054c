"""Shutting an RQ worker process down: SIGTERM hands the running task back to the front of
its queue within the grace, without using up an attempt, and SIGKILL leaves no process of
the worker behind. Real worker processes on the real Redis."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from redis import Redis
from rq.job import Job

from storage.queue.base import QueueName, TaskSpec
from storage.queue.rq_queue import SERIALIZER, RQTaskQueue
from tests.integration.queue.handlers import read_log
from tests.support.databases import REDIS_URL
from tests.support.rq_workers import WorkerProcesses
from tests.support.waiting import wait_until

H = "tests.integration.queue.handlers"
RETRIES = 3


@pytest.fixture
def queue(key_prefix: str) -> Iterator[RQTaskQueue]:
    task_queue = RQTaskQueue(REDIS_URL, key_prefix=key_prefix)
    yield task_queue
    task_queue.close()


def spec(handler: str, payload: dict[str, Any], job_id: str) -> TaskSpec:
    return TaskSpec(
        handler=f"{H}.{handler}",
        payload=payload,
        queue=QueueName.DEFAULT,
        job_id=job_id,
        group=job_id,
        max_retries=RETRIES,
        retry_intervals=(0,),
    )


def events(path: Path, name: str) -> list[dict[str, Any]]:
    return [entry for entry in read_log(path) if entry["event"] == name]


def waiting(redis: Redis, key_prefix: str) -> list[str]:
    members = redis.lrange(f"rq:queue:{key_prefix}:default", 0, -1)
    return [m.decode() if isinstance(m, bytes) else str(m) for m in members]


def signal_and_wait(worker: subprocess.Popen[str], *signals: signal.Signals) -> float:
    """Send ``signals`` one second apart; seconds from the first until the process exited."""
    started = time.monotonic()
    for index, signum in enumerate(signals):
        if index:
            time.sleep(1.0)
        worker.send_signal(signum)
    output, _ = worker.communicate(timeout=60)
    assert worker.returncode == 0, output
    return time.monotonic() - started


def assert_handed_back(queue: RQTaskQueue, redis: Redis, key_prefix: str, job_id: str) -> None:
    """Waiting again, first in line, with every attempt still to use."""
    rq_id = queue.rq_job_id(job_id)
    assert waiting(redis, key_prefix)[0] == rq_id
    job = Job.fetch(rq_id, connection=redis, serializer=SERIALIZER)
    assert job.get_status() == "queued"
    assert job.retries_left == RETRIES
    assert queue.is_queued(job_id)


@pytest.mark.parametrize("simple", [True, False], ids=["simple", "forking"])
def test_sigterm_hands_the_running_task_back_to_the_front(
    simple: bool,
    queue: RQTaskQueue,
    workers: WorkerProcesses,
    key_prefix: str,
    tmp_path: Path,
    redis_client: Redis,
) -> None:
    log, release = tmp_path / "log", tmp_path / "release"
    worker = workers.start(key_prefix, burst=False, simple=simple, shutdown_grace_s=20)
    long_payload = {"log": str(log), "release": str(release), "run_s": 120}
    queue.enqueue(spec("run_until_shutdown", long_payload, "long"))
    wait_until(lambda: len(events(log, "started")) == 1)
    queue.enqueue(spec("record", {"log": str(log), "value": "later"}, "later"))

    # It stops at its next checkpoint, long before the grace is over.
    assert signal_and_wait(worker, signal.SIGTERM) < 10
    assert len(events(log, "interrupted")) == 1
    assert_handed_back(queue, redis_client, key_prefix, "long")
    assert waiting(redis_client, key_prefix) == [queue.rq_job_id("long"), queue.rq_job_id("later")]

    # Another worker takes it before the backlog, at the same attempt, and finishes it.
    release.touch()
    workers.run_burst(key_prefix, simple=simple)
    order = [entry["event"] for entry in read_log(log)]
    assert order == ["started", "interrupted", "started", "done", "ran"]
    assert [entry["attempt"] for entry in events(log, "started")] == [1, 1]


@pytest.mark.parametrize("simple", [True, False], ids=["simple", "forking"])
def test_task_without_checkpoints_is_interrupted_before_the_grace_ends(
    simple: bool,
    queue: RQTaskQueue,
    workers: WorkerProcesses,
    key_prefix: str,
    tmp_path: Path,
    redis_client: Redis,
) -> None:
    log = tmp_path / "log"
    grace = 8.0
    worker = workers.start(key_prefix, burst=False, simple=simple, shutdown_grace_s=grace)
    queue.enqueue(spec("sleep_without_checkpoints", {"log": str(log), "sleep_s": 120}, "k"))
    wait_until(lambda: len(events(log, "started")) == 1)

    assert signal_and_wait(worker, signal.SIGTERM) < grace
    assert len(events(log, "interrupted")) == 1
    assert events(log, "done") == []
    assert_handed_back(queue, redis_client, key_prefix, "k")


def test_second_sigterm_hands_the_task_back_at_once(
    queue: RQTaskQueue,
    workers: WorkerProcesses,
    key_prefix: str,
    tmp_path: Path,
    redis_client: Redis,
) -> None:
    log = tmp_path / "log"
    worker = workers.start(key_prefix, burst=False, simple=True, shutdown_grace_s=60)
    queue.enqueue(spec("sleep_without_checkpoints", {"log": str(log), "sleep_s": 120}, "k"))
    wait_until(lambda: len(events(log, "started")) == 1)

    # RQ's own second signal raised SystemExit inside the task: a failed attempt.
    assert signal_and_wait(worker, signal.SIGTERM, signal.SIGTERM) < 10
    assert len(events(log, "interrupted")) == 1
    assert_handed_back(queue, redis_client, key_prefix, "k")


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.mark.parametrize("simple", [True, False], ids=["simple", "forking"])
def test_sigkilled_worker_leaves_no_process_behind(
    simple: bool,
    queue: RQTaskQueue,
    workers: WorkerProcesses,
    key_prefix: str,
    tmp_path: Path,
    redis_client: Redis,
) -> None:
    log = tmp_path / "log"
    worker = workers.start(key_prefix, burst=False, simple=simple)
    queue.enqueue(spec("sleep_without_checkpoints", {"log": str(log), "sleep_s": 120}, "k"))
    wait_until(lambda: len(events(log, "started")) == 1)
    # Its scheduler is at work (it holds the queue's scheduler lock).
    wait_until(lambda: redis_client.exists(f"rq:scheduler-lock:{key_prefix}:default") == 1)
    children = [p.pid for p in psutil.Process(worker.pid).children(recursive=True)]
    # The simple worker runs task and scheduler in its own process; the forking one has
    # its work horse.
    assert len(children) == (0 if simple else 1)

    worker.kill()
    worker.communicate(timeout=10)

    wait_until(lambda: not _alive(children), timeout=5)
