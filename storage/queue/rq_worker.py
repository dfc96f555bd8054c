"""Running an RQ worker on a deployment's prefixed queues (the worker process entry point
itself lives in ``workers``).

What our worker classes add to RQ's:

* **Shutdown within a grace.** SIGTERM/SIGINT sets the process's shutdown flag, which the
  running handler reads at its checkpoints (``shutdown_requested()``) and answers by raising
  TaskInterrupted; the job goes back to the front of its queue without using up an attempt
  (see ``rq_queue.run_task``). A handler that reaches no checkpoint is interrupted by a signal
  ``HANDBACK_RESERVE_S`` before the grace ends; a second SIGTERM does that at once. Only a
  process still busy when the grace is over exits hard.
* **No child outlives the worker.** The scheduler runs in a thread (``rq_scheduler``); a
  forking worker's work horse is told by the kernel to die with its parent.
* **Redis outages.** RQ's work loop quits on any error outside its blocking dequeue (a job
  whose bookkeeping hit a dead Redis, a heartbeat); :func:`run_worker` then waits for Redis
  with exponential backoff and starts the loop again, until a shutdown is asked for.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType
from typing import Any

from redis import Redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import RedisError
from rq import Queue, SimpleWorker, Worker
from rq.job import Job
from rq.worker import BaseWorker, WorkerStatus

from storage.queue import shutdown
from storage.queue.base import QueueName, TaskInterrupted
from storage.queue.rq_queue import (
    SERIALIZER,
    finish_failed_job,
    rq_queue_name,
    validate_key_prefix,
)
from storage.queue.rq_scheduler import ThreadScheduler

logger = logging.getLogger(__name__)

DEFAULT_SHUTDOWN_GRACE_S = 30.0
# The forced interrupt comes this long before the grace ends, so handing the round back
# (closing its spans, removing its products, requeueing) still fits in the grace.
HANDBACK_RESERVE_S = 5.0
# Sent to the process running the task: "shutdown requested" (a work horse has no other way
# to learn it) and "grace over, stop now".
_SHUTDOWN_SIGNAL = signal.SIGUSR1
_INTERRUPT_SIGNAL = signal.SIGUSR2
_RECONNECT_CAP_S = 30.0
_PR_SET_PDEATHSIG = 1


def on_work_horse_killed(job: Job, retpid: int, ret_val: int, rusage: Any) -> None:
    """A work horse died without reporting (OOM kill, segfault, monitor's hard kill): RQ
    then skips ``on_failure``, so a last attempt is finished here instead."""
    try:
        if not job.should_retry:
            finish_failed_job(job, job.connection, f"work horse died (wait status {ret_val})")
    except Exception:
        logger.exception("final-failure handling of killed job %s failed", job.id)


def _interrupt_running_task(signum: int, frame: FrameType | None) -> None:
    if shutdown.in_task():
        raise TaskInterrupted("the worker's shutdown grace ran out")


def _note_shutdown(signum: int, frame: FrameType | None) -> None:
    shutdown.request()


def _die_with_parent() -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux)."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        logger.warning("prctl(PR_SET_PDEATHSIG) failed: errno %d", ctypes.get_errno())
    if os.getppid() != parent:  # the parent died before the request was in place
        os._exit(1)


class _GracefulWorker(BaseWorker):
    shutdown_grace_s: float = DEFAULT_SHUTDOWN_GRACE_S
    # The loop ended because a burst found the queues empty (not on an error).
    drained: bool = False
    _deadline_timers: list[threading.Timer]

    # ---- shutdown ------------------------------------------------------------------------

    def _install_signal_handlers(self) -> None:
        super()._install_signal_handlers()  # type: ignore[no-untyped-call]
        signal.signal(_INTERRUPT_SIGNAL, _interrupt_running_task)

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        shutdown.request()
        if self.get_state() == WorkerStatus.BUSY:
            if self.horse_pid:  # this process's own flag is set already
                self._signal_task_process(_SHUTDOWN_SIGNAL)
            self._arm_deadline()
            self.log.warning(
                "Worker %s: shutting down; the running task stops at its next checkpoint "
                "and goes back to its queue (grace %.0f s)",
                self.name,
                self.shutdown_grace_s,
            )
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]

    def request_force_stop(self, signum: int, frame: FrameType | None) -> None:
        """A second signal: the running task is handed back now, not at its checkpoint."""
        self.log.warning("Worker %s: second shutdown signal; interrupting the task", self.name)
        if self.horse_pid:
            self._signal_task_process(_INTERRUPT_SIGNAL)
        else:
            _interrupt_running_task(signum, frame)

    def set_shutdown_requested_date(self) -> None:
        # Bookkeeping only; a Redis that is away must not turn SIGTERM into an error raised
        # inside the running task.
        try:
            super().set_shutdown_requested_date()  # type: ignore[no-untyped-call]
        except RedisError:
            self.log.warning("Worker %s: could not record the shutdown request", self.name)

    def _signal_task_process(self, signum: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.horse_pid or os.getpid(), signum)

    def _arm_deadline(self) -> None:
        if getattr(self, "_deadline_timers", None):
            return
        grace = self.shutdown_grace_s
        interrupt_after = max(grace - HANDBACK_RESERVE_S, grace / 2)
        self._deadline_timers = [
            threading.Timer(interrupt_after, self._signal_task_process, (_INTERRUPT_SIGNAL,)),
            threading.Timer(grace, self._give_up),
        ]
        for timer in self._deadline_timers:
            timer.daemon = True
            timer.start()

    def _give_up(self) -> None:
        """The task reached no point where it could stop within the grace: exit anyway (RQ
        later finds its job abandoned and retries it, using up an attempt)."""
        self.log.error(
            "Worker %s: still busy %.0f s after the shutdown request; exiting hard",
            self.name,
            self.shutdown_grace_s,
        )
        if self.horse_pid:
            self._signal_task_process(signal.SIGKILL)
        logging.shutdown()
        os._exit(1)

    # ---- scheduler -----------------------------------------------------------------------

    def _start_scheduler(
        self,
        burst: bool = False,
        logging_level: str | None = "INFO",
        date_format: str = "",
        log_format: str = "",
    ) -> None:
        """RQ's own steps, with the scheduler in a thread instead of a forked process."""
        scheduler = ThreadScheduler(
            self.queues,
            connection=self.connection,
            logging_level=logging_level if logging_level is not None else self.log.level,
            serializer=self.serializer,
        )
        self.scheduler = scheduler
        scheduler.acquire_locks()  # type: ignore[no-untyped-call]
        if not scheduler.acquired_locks:
            return
        if burst:
            try:
                scheduler.register_birth()
                scheduler.enqueue_scheduled_jobs()  # type: ignore[no-untyped-call]
            finally:
                scheduler.release_locks()  # type: ignore[no-untyped-call]
                scheduler.register_death()
        else:
            scheduler.start()

    def stop_scheduler(self) -> None:
        if isinstance(self.scheduler, ThreadScheduler):
            self.scheduler.stop_thread()

    # ---- the loop ------------------------------------------------------------------------

    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        result = super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        if result is None:
            self.drained = True
        return result

    def release(self) -> None:
        """Best-effort cleanup after a loop that ended on an error: no scheduler thread or
        pubsub thread of this worker survives it, and its name is free again."""
        for step in (self.stop_scheduler, self.unsubscribe, self.register_death):
            try:
                step()
            except Exception:
                self.log.debug("Worker %s: cleanup step %s failed", self.name, step.__name__)


class SluiceSimpleWorker(_GracefulWorker, SimpleWorker):
    """Runs each task in the worker process itself (what ``sluice-worker`` uses)."""


class SluiceForkingWorker(_GracefulWorker, Worker):
    """Runs each task in a forked work horse, which ``cancel_group`` can kill."""

    def setup_work_horse_signals(self) -> None:
        super().setup_work_horse_signals()  # type: ignore[no-untyped-call]
        _die_with_parent()
        signal.signal(_SHUTDOWN_SIGNAL, _note_shutdown)
        signal.signal(_INTERRUPT_SIGNAL, _interrupt_running_task)


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
    shutdown_grace_s: float = DEFAULT_SHUTDOWN_GRACE_S,
) -> None:
    """Work on ``queues`` (highest priority first) until SIGTERM/SIGINT or, with ``burst``,
    until they are empty. A shutdown hands the running task back within
    ``shutdown_grace_s`` (module docstring); a Redis outage only pauses the worker.

    The default forking worker runs each task in a child process, so ``cancel_group`` can
    kill a running task; ``simple=True`` runs tasks in this process (faster, but a running
    task stops only through its cooperative ``cancel_requested()`` checks). The scheduler is
    what moves retries with a non-zero interval back onto their queue.
    """
    validate_key_prefix(key_prefix)
    if not queues:
        raise ValueError("run_worker needs at least one queue")
    if shutdown_grace_s <= 0:
        raise ValueError("shutdown_grace_s must be > 0")
    shutdown.reset()
    connection = Redis.from_url(redis_url)
    rq_queues = [
        Queue(rq_queue_name(key_prefix, queue), connection=connection, serializer=SERIALIZER)
        for queue in queues
    ]
    worker_class = SluiceSimpleWorker if simple else SluiceForkingWorker
    backoff = ExponentialWithJitterBackoff(cap=_RECONNECT_CAP_S, base=1.0)
    try:
        while True:
            worker = worker_class(
                rq_queues,
                # Worker names are global in Redis; keep deployments apart.
                name=f"{key_prefix}:{name}" if name else None,
                connection=connection,
                serializer=SERIALIZER,
                work_horse_killed_handler=on_work_horse_killed,
            )
            worker.shutdown_grace_s = shutdown_grace_s
            if _work_until_stopped(worker, burst, with_scheduler, logging_level):
                return
            _wait_for_redis(connection, backoff)
            worker.release()
            if shutdown.is_requested():
                return
    finally:
        connection.close()


def _work_until_stopped(
    worker: _GracefulWorker, burst: bool, with_scheduler: bool, logging_level: str
) -> bool:
    """Run the loop; True when it ended as asked (shutdown, burst done), False on an error."""
    try:
        worker.work(burst=burst, with_scheduler=with_scheduler, logging_level=logging_level)
    except (RedisError, OSError) as exc:
        # RQ's teardown (register_death) raises when Redis is gone.
        logger.warning("worker %s lost Redis: %s", worker.name, exc)
    if shutdown.is_requested() or worker.drained:
        return True
    logger.error("worker %s stopped on an error; it goes on once Redis answers", worker.name)
    return False


def _wait_for_redis(connection: Redis, backoff: ExponentialWithJitterBackoff) -> None:
    """Ping with exponential backoff until Redis answers or a shutdown is asked for."""
    # RQ's handlers belong to the worker loop that ended; a signal now only ends the wait.
    signal.signal(signal.SIGTERM, _note_shutdown)
    signal.signal(signal.SIGINT, _note_shutdown)
    failures = 0
    while not shutdown.wait(backoff.compute(failures)):
        try:
            connection.ping()
            logger.warning("Redis answers again after %d failed pings", failures)
            return
        except RedisError as exc:
            failures += 1
            logger.warning("Redis still unreachable (%s)", exc)
