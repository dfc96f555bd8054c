"""Running an RQ worker on a deployment's prefixed queues (the worker process entry point
itself lives in ``workers``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from redis import Redis
from rq import Queue, SimpleWorker, Worker
from rq.job import Job

from storage.queue.base import QueueName
from storage.queue.rq_queue import (
    SERIALIZER,
    finish_failed_job,
    rq_queue_name,
    validate_key_prefix,
)

logger = logging.getLogger(__name__)


def on_work_horse_killed(job: Job, retpid: int, ret_val: int, rusage: Any) -> None:
    """A work horse died without reporting (OOM kill, segfault, monitor's hard kill): RQ
    then skips ``on_failure``, so a last attempt is finished here instead."""
    try:
        if not job.should_retry:
            finish_failed_job(job, job.connection, f"work horse died (wait status {ret_val})")
    except Exception:
        logger.exception("final-failure handling of killed job %s failed", job.id)


def run_worker(
    redis_url: str,
    key_prefix: str,
    queues: Sequence[QueueName],
    *,
    burst: bool = False,
    name: str | None = None,
    with_scheduler: bool = True,
    simple: bool = False,
    logging_level: str = "INFO",
) -> None:
    """Work on ``queues`` (highest priority first) until SIGTERM/SIGINT (warm shutdown: the
    running task finishes first) or, with ``burst``, until they are empty.

    The default forking worker runs each task in a child process, so ``cancel_group`` can
    kill a running task; ``simple=True`` runs tasks in this process (faster, but a running
    task stops only through its cooperative ``cancel_requested()`` checks). The scheduler is
    what moves retries with a non-zero interval back onto their queue.
    """
    validate_key_prefix(key_prefix)
    if not queues:
        raise ValueError("run_worker needs at least one queue")
    connection = Redis.from_url(redis_url)
    rq_queues = [
        Queue(rq_queue_name(key_prefix, queue), connection=connection, serializer=SERIALIZER)
        for queue in queues
    ]
    worker_class = SimpleWorker if simple else Worker
    worker = worker_class(
        rq_queues,
        # Worker names are global in Redis; keep deployments apart.
        name=f"{key_prefix}:{name}" if name else None,
        connection=connection,
        serializer=SERIALIZER,
        work_horse_killed_handler=on_work_horse_killed,
    )
    try:
        worker.work(burst=burst, with_scheduler=with_scheduler, logging_level=logging_level)
    finally:
        connection.close()
