"""The adapters under the queue contract: the lite queue in this process and the RQ queue
with real RQ worker processes, each behind the same small driver."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redis import Redis

from storage.queue.base import QueueName, TaskQueue, TaskSpec
from storage.queue.lite import LiteTaskQueue
from storage.queue.rq_queue import RQTaskQueue
from tests.integration.queue.handlers import read_log
from tests.support.databases import REDIS_URL
from tests.support.rq_workers import WorkerProcesses
from tests.support.waiting import wait_until

H = "tests.integration.queue.handlers"


def spec(handler: str, payload: dict[str, Any], **options: Any) -> TaskSpec:
    options.setdefault("queue", QueueName.DEFAULT)
    return TaskSpec(handler=f"{H}.{handler}", payload=payload, **options)


def events(path: Path, name: str) -> list[dict[str, Any]]:
    return [entry for entry in read_log(path) if entry["event"] == name]


@dataclass
class Adapter:
    """``drain``: run every task enqueued so far to its end. ``serve``: from now on a worker
    takes tasks as they come; ``settle``: wait, while served, until the group's tasks are
    over; ``stop`` ends serving cleanly. ``group_bookkeeping``: what the adapter still keeps
    about a group besides its tasks (0 once they are over)."""

    queue: TaskQueue
    drain: Callable[[], None]
    settle: Callable[[str], None]
    serve: Callable[[], None] = lambda: None
    stop: Callable[[], None] = lambda: None
    group_bookkeeping: Callable[[str], int] = lambda group: 0


@dataclass
class _RQWorkers:
    workers: WorkerProcesses
    key_prefix: str
    serving: list[subprocess.Popen[str]] = field(default_factory=list)

    def drain(self) -> None:
        self.workers.run_burst(self.key_prefix)

    def serve(self) -> None:
        # A simple worker runs tasks in its own process, where cancel_requested() is seen.
        self.serving.append(self.workers.start(self.key_prefix, burst=False, simple=True))

    def stop(self) -> None:
        for worker in self.serving:
            assert self.workers.stop(worker) == 0  # SIGTERM: warm shutdown of an idle worker
        self.serving.clear()


def lite_adapter() -> Iterator[Adapter]:
    queue = LiteTaskQueue(shutdown_grace_s=2.0)
    try:
        yield Adapter(queue, drain=lambda: _joined(queue), settle=lambda group: _joined(queue))
    finally:
        queue.close()


def _joined(queue: LiteTaskQueue) -> None:
    assert queue.join(5)


def rq_adapter(workers: WorkerProcesses, key_prefix: str, redis_client: Redis) -> Iterator[Adapter]:
    queue = RQTaskQueue(REDIS_URL, key_prefix=key_prefix)
    running = _RQWorkers(workers, key_prefix)

    def group_bookkeeping(group: str) -> int:
        return int(redis_client.exists(f"{key_prefix}:queue:group:{group}"))

    try:
        yield Adapter(
            queue,
            drain=running.drain,
            serve=running.serve,
            stop=running.stop,
            # The group's record goes with its last task (retries and dead letter included).
            settle=lambda group: wait_until(lambda: group_bookkeeping(group) == 0),
            group_bookkeeping=group_bookkeeping,
        )
    finally:
        queue.close()
