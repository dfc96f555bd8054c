"""A worker process outlives a Redis outage: a private redis-server (so stopping it
disturbs no one else) is killed under a worker and started again empty; the worker keeps
running and processes the next job."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from storage.queue.base import QueueName, TaskSpec
from storage.queue.rq_queue import RQTaskQueue
from tests.chaos.redis_server import RedisServer, redis_server
from tests.integration.queue.handlers import read_log
from tests.support.rq_workers import WorkerProcesses
from tests.support.waiting import wait_until

H = "tests.integration.queue.handlers"


@pytest.fixture
def server() -> Iterator[RedisServer]:
    with redis_server() as running:
        yield running


def spec(handler: str, payload: dict[str, Any]) -> TaskSpec:
    return TaskSpec(handler=f"{H}.{handler}", payload=payload, queue=QueueName.DEFAULT)


def ran(log: Path) -> list[Any]:
    return [entry.get("value") for entry in read_log(log) if entry["event"] in ("ran", "done")]


@pytest.mark.parametrize("during", ["idle", "task"])
def test_worker_survives_a_redis_outage_and_takes_the_next_job(
    during: str, server: RedisServer, workers: WorkerProcesses, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    prefix = f"sluice_outage_{uuid4().hex[:8]}"
    queue = RQTaskQueue(server.url, key_prefix=prefix)
    try:
        worker = workers.start(prefix, burst=False, simple=True, redis_url=server.url)
        queue.enqueue(spec("record", {"log": str(log), "value": "before"}))
        wait_until(lambda: ran(log) == ["before"], timeout=20)
        if during == "task":
            # The task outlives Redis; its bookkeeping afterwards meets a dead server.
            queue.enqueue(spec("sleep_then_record", {"log": str(log), "sleep_s": 1.5}))
            wait_until(lambda: any(e["event"] == "started" for e in read_log(log)))

        server.crash_for(4.0)

        assert worker.poll() is None, worker.communicate()[0]
        queue.enqueue(spec("record", {"log": str(log), "value": "after"}))
        wait_until(lambda: "after" in ran(log), timeout=60)
        assert worker.poll() is None
        assert workers.stop(worker) == 0
    finally:
        queue.close()
