"""Several RQ worker processes under one supervisor (``sluice-worker --concurrency N``):
rq's WorkerPool (the library behind ``rq worker-pool``) with our worker in each child.

What we change of WorkerPool: each child runs a caller-given function (which builds the
process's own context and then :func:`storage.queue.rq_worker.run_worker`) instead of a
plain ``rq`` worker, and a child that exits with an error stops the pool instead of being
respawned every second: a worker that failed on its own (bad settings, a database it cannot
reach at start) would fail the same way again. A child killed by a signal (the OOM killer,
say) is respawned, as WorkerPool does. SIGTERM/SIGINT stop the pool: each child gets
SIGINT, hands its running task back within its grace and exits.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from multiprocessing import get_context
from multiprocessing.process import BaseProcess

from redis import Redis
from rq.worker_pool import WorkerData, WorkerPool

logger = logging.getLogger(__name__)

# (worker name, burst): runs one worker until it is stopped (or, with burst, done).
WorkerMain = Callable[[str, bool], None]


class WorkerProcessFailed(RuntimeError):
    """A worker of the pool exited with an error; the pool stopped."""


class _SluiceWorkerPool(WorkerPool):
    def __init__(self, size: int, connection: Redis, worker_main: WorkerMain) -> None:
        super().__init__([], connection=connection, num_workers=size)
        self._worker_main = worker_main
        self.failed_exit_code: int | None = None

    def get_worker_process(
        self, name: str, burst: bool, _sleep: float = 0, logging_level: str = "INFO"
    ) -> BaseProcess:
        # Forked before any context exists in the supervisor: each child builds its own
        # (database engines, index connection) after the fork.
        return get_context("fork").Process(
            target=self._worker_main, args=(name, burst), name=f"sluice-worker {name}"
        )

    def handle_dead_worker(self, worker_data: WorkerData) -> None:
        super().handle_dead_worker(worker_data)
        code = worker_data.process.exitcode
        if code is not None and code > 0 and self.status != self.Status.STOPPED:
            logger.error("worker %s exited with code %s; stopping the pool", worker_data.pid, code)
            self.failed_exit_code = code
            self.request_stop()  # type: ignore[no-untyped-call]  # rq leaves it unannotated


def run_worker_pool(
    size: int, redis_url: str, worker_main: WorkerMain, *, burst: bool = False
) -> None:
    """Run ``size`` processes of ``worker_main`` until SIGTERM/SIGINT (or, with ``burst``,
    until each is done); WorkerProcessFailed when one exited with an error."""
    if size < 1:
        raise ValueError(f"a worker pool needs at least one process, not {size}")
    connection = Redis.from_url(redis_url)
    try:
        pool = _SluiceWorkerPool(size, connection, worker_main)
        pool.start(burst=burst, logging_level=logging.getLevelName(logger.getEffectiveLevel()))
    finally:
        connection.close()
    if pool.failed_exit_code is not None:
        raise WorkerProcessFailed(f"a worker process exited with code {pool.failed_exit_code}")
