"""In-process :class:`TaskQueue` for lite mode: the same handler paths, run in threads.

Each queue is a FIFO; the threads of a pool (storage.queue.pools) take tasks from the
pool's queues, the first non-empty one first, and a queue in no pool given gets a thread of
its own, so every queue is consumed. Retries, ``attempt_info()``,
``on_final_failure`` (once, after the last attempt), job-id dedup and groups behave as in the
RQ adapter. Payloads go through JSON at enqueue and are decoded afresh for every attempt, as
they would be from Redis.

Time limits: Python threads cannot be killed, so each attempt runs in its own daemon thread
and its pool thread waits at most ``timeout_s``. A late attempt is then reported failed (and
retried or dead-lettered) while its thread is abandoned: ``cancel_requested()`` turns true for
it, and handlers must check it between pages, batches and stages so it actually stops.
``cancel_group`` likewise stops running tasks only through that cooperative flag.

``close()`` is the shutdown: waiting work is dropped (lite mode re-finds unfinished work
from the database at its next start), and running handlers see ``shutdown_requested()``
and stop at their next checkpoint by raising TaskInterrupted, within ``shutdown_grace_s``.
An interrupted attempt is neither a failure nor retried: like the RQ adapter's hand-back,
it uses up no attempt.
"""

from __future__ import annotations

import heapq
import itertools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from uuid import uuid4

from core.clock import SYSTEM_CLOCK, Clock
from storage.queue.base import (
    PICKUP_GRACE_S,
    AttemptInfo,
    QueueError,
    QueueName,
    TaskInterrupted,
    TaskSpec,
)
from storage.queue.counts import QueueCounts
from storage.queue.execution import (
    call_final_failure,
    current_attempt,
    describe_error,
    run_handler,
)
from storage.queue.execution import (
    cancel_requested as _cancel_requested,
)
from storage.queue.execution import (
    shutdown_requested as _shutdown_requested,
)
from storage.queue.pools import PoolSpec
from storage.queue.trace_context import current_carrier

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class _Task:
    spec: TaskSpec
    job_id: str
    payload_json: str
    attempt: int = 1
    # Set by cancel_group: the task is stopped, not failed (no retry, no dead letter).
    cancelled: threading.Event = field(default_factory=threading.Event)
    # When a pool thread took it (the queue's clock, monotonic); 0 while waiting.
    taken_at: float = 0.0
    # The trace of whoever enqueued it (built where enqueue runs), continued by its attempts.
    trace_carrier: dict[str, str] = field(default_factory=current_carrier)


@dataclass(eq=False)
class _Queue:
    """One queue: ready tasks in FIFO order, retries waiting for their delay."""

    ready: deque[_Task] = field(default_factory=deque)
    delayed: list[tuple[float, int, _Task]] = field(default_factory=list)


@dataclass(eq=False)
class _Lane:
    """One pool: its queues in priority order, its threads (started on the first task)."""

    pool: PoolSpec
    wakeup: threading.Condition
    threads: list[threading.Thread] = field(default_factory=list)


class LiteTaskQueue:
    def __init__(
        self,
        *,
        pools: Sequence[PoolSpec] = (),
        shutdown_grace_s: float = 10.0,
        pickup_grace_s: float = PICKUP_GRACE_S,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        served = {queue for pool in pools for queue in pool.queues}
        own = [PoolSpec(q.value, (q,), 1) for q in QueueName if q not in served]
        self._shutdown_grace_s = shutdown_grace_s
        self._pickup_grace_s = pickup_grace_s
        # Judges the pickup grace (how long a just-taken task still counts as queued). Retry
        # delays and time limits are waits of real threads and stay on real time.
        self._clock = clock
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._queues = {queue: _Queue() for queue in QueueName}
        self._lanes = [_Lane(pool, threading.Condition(self._lock)) for pool in (*pools, *own)]
        # Every task not finished yet (waiting, delayed, running or in its dead letter).
        self._tasks: dict[str, _Task] = {}
        self._running: set[_Task] = set()
        self._sequence = itertools.count()
        self._closed = False
        self._shutting_down = threading.Event()

    # ---- producer side ----------------------------------------------------------------------

    def enqueue(self, spec: TaskSpec) -> str:
        try:
            payload_json = json.dumps(spec.payload)
        except (TypeError, ValueError) as exc:
            raise QueueError(f"payload of {spec.handler} is not JSON-serialisable: {exc}") from exc
        job_id = spec.job_id or uuid4().hex
        with self._lock:
            if self._closed:
                raise QueueError("the lite task queue is closed")
            if job_id in self._tasks:
                return job_id
            task = _Task(spec, job_id, payload_json)
            self._tasks[job_id] = task
            ready = self._queues[spec.queue].ready
            if spec.at_front:
                ready.appendleft(task)
            else:
                ready.append(task)
            self._wake(spec.queue)
        return job_id

    def _wake(self, queue: QueueName) -> None:
        """Tell one idle thread of each pool serving ``queue`` (their threads started on
        its first task) that it has work or a new retry time (caller holds the lock)."""
        for lane in self._lanes:
            if queue not in lane.pool.queues:
                continue
            if not lane.threads:
                for index in range(lane.pool.size):
                    thread = threading.Thread(
                        target=self._work,
                        args=(lane,),
                        daemon=True,
                        name=f"sluice-lite-{lane.pool.name}-{index}",
                    )
                    lane.threads.append(thread)
                    thread.start()
            lane.wakeup.notify()

    def is_queued(self, group: str) -> bool:
        with self._lock:
            since = self._clock.monotonic() - self._pickup_grace_s
            just_taken = [task for task in self._running if task.taken_at > since]
            return any(task.spec.group == group for task in (*self._waiting_tasks(), *just_taken))

    def has_live_task(self, group: str) -> bool:
        with self._lock:
            return any(task.spec.group == group for task in self._tasks.values())

    def forget_dead_tasks(self, group: str) -> int:
        return 0  # a task of this process lives as long as the process

    def _waiting_tasks(self) -> list[_Task]:
        return [
            task
            for queue in self._queues.values()
            for task in (*queue.ready, *(entry[2] for entry in queue.delayed))
        ]

    def counts(self) -> dict[QueueName, QueueCounts]:
        """Every queue's counts (nothing is kept failed here: a final failure goes to its
        dead letter at once)."""
        with self._lock:
            running = [task.spec.queue for task in self._running]
            return {
                name: QueueCounts(
                    waiting=len(queue.ready),
                    started=running.count(name),
                    scheduled=len(queue.delayed),
                )
                for name, queue in self._queues.items()
            }

    def cancel_group(self, group: str) -> int:
        with self._lock:
            removed = 0
            for queue in self._queues.values():
                kept = deque(task for task in queue.ready if task.spec.group != group)
                kept_delayed = [entry for entry in queue.delayed if entry[2].spec.group != group]
                removed += len(queue.ready) - len(kept) + len(queue.delayed) - len(kept_delayed)
                for task in (*queue.ready, *(entry[2] for entry in queue.delayed)):
                    if task.spec.group == group:
                        del self._tasks[task.job_id]
                heapq.heapify(kept_delayed)
                queue.ready, queue.delayed = kept, kept_delayed
            running = [task for task in self._running if task.spec.group == group]
            for task in running:
                task.cancelled.set()
            if not self._tasks:
                self._idle.notify_all()
            return removed + len(running)

    # ---- inside handlers --------------------------------------------------------------------

    def attempt_info(self) -> AttemptInfo:
        return current_attempt()

    def cancel_requested(self) -> bool:
        return _cancel_requested()

    def shutdown_requested(self) -> bool:
        return _shutdown_requested()

    # ---- lifecycle --------------------------------------------------------------------------

    def join(self, timeout: float | None = None) -> bool:
        """Wait until no task is waiting, delayed or running; False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._tasks, timeout)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for task in self._waiting_tasks():
                del self._tasks[task.job_id]
            self._shutting_down.set()
            # Handlers that check only the cancel flag stop too; checkpoints that know the
            # shutdown flag look at it first, and hand their round back.
            for task in self._running:
                task.cancelled.set()
            for queue in self._queues.values():
                queue.ready.clear()
                queue.delayed.clear()
            threads = []
            for lane in self._lanes:
                lane.wakeup.notify_all()
                threads.extend(lane.threads)
            if not self._tasks:
                self._idle.notify_all()
        deadline = time.monotonic() + self._shutdown_grace_s
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                logger.warning("%s still busy after close(); left running", thread.name)

    # ---- pool threads -----------------------------------------------------------------------

    def _work(self, lane: _Lane) -> None:
        while True:
            with self._lock:
                task = self._take(lane)
                if task is None:
                    return
                task.taken_at = self._clock.monotonic()
                self._running.add(task)
            error = self._attempt(task)
            self._settle(task, error)

    def _take(self, lane: _Lane) -> _Task | None:
        """Next ready task of the pool's queues, the first queue first, waiting as needed;
        None once closed (lock held)."""
        while not self._closed:
            now = time.monotonic()
            next_due: float | None = None
            for name in lane.pool.queues:
                queue = self._queues[name]
                while queue.delayed and queue.delayed[0][0] <= now:
                    queue.ready.append(heapq.heappop(queue.delayed)[2])
                if queue.ready:
                    return queue.ready.popleft()
                if queue.delayed:
                    due = queue.delayed[0][0]
                    next_due = due if next_due is None else min(next_due, due)
            lane.wakeup.wait(None if next_due is None else next_due - now)
        return None

    def _attempt(self, task: _Task) -> str | None:
        """Run one attempt in its own thread; the error text, or None on success."""
        spec = task.spec
        info = AttemptInfo(
            task.job_id, spec.group, task.attempt, spec.max_attempts, timeout_s=spec.timeout_s
        )
        abandoned = threading.Event()
        errors: list[BaseException] = []

        def stop_requested() -> bool:
            return task.cancelled.is_set() or abandoned.is_set()

        def run() -> None:
            try:
                run_handler(
                    spec.handler,
                    json.loads(task.payload_json),
                    info,
                    stop_requested,
                    self._shutting_down.is_set,
                    task.trace_carrier,
                )
            except TaskInterrupted:
                # Not an error: closing drops the task, and the next start re-finds its row.
                logger.info("task %s [%s] interrupted by shutdown", spec.handler, task.job_id)
            # A handler's crash of any kind is a failed attempt, never a dead process.
            except BaseException as exc:
                errors.append(exc)
                logger.warning(
                    "task %s [%s] attempt %d/%d failed",
                    spec.handler,
                    task.job_id,
                    task.attempt,
                    spec.max_attempts,
                    exc_info=exc,
                )

        thread = threading.Thread(target=run, name=f"sluice-task-{task.job_id}", daemon=True)
        thread.start()
        thread.join(spec.timeout_s)
        if thread.is_alive():
            abandoned.set()
            logger.error(
                "task %s [%s] attempt %d exceeded %ds; its thread is abandoned",
                spec.handler,
                task.job_id,
                task.attempt,
                spec.timeout_s,
            )
            return f"TaskTimeout: attempt exceeded its {spec.timeout_s}s time limit"
        return describe_error(errors[0]) if errors else None

    def _settle(self, task: _Task, error: str | None) -> None:
        spec = task.spec
        with self._lock:
            self._running.discard(task)
            stopped = task.cancelled.is_set() or self._closed
            if error is not None and not stopped and task.attempt < spec.max_attempts:
                delay = spec.retry_delay(task.attempt)
                task.attempt += 1
                queue = self._queues[spec.queue]
                if delay:
                    entry = (time.monotonic() + delay, next(self._sequence), task)
                    heapq.heappush(queue.delayed, entry)
                else:
                    queue.ready.append(task)
                self._wake(spec.queue)
                return
        # The dead letter runs before the task counts as finished, so join() covers it.
        if error is not None and not stopped and spec.on_final_failure is not None:
            call_final_failure(spec.on_final_failure, json.loads(task.payload_json), error)
        with self._lock:
            if self._tasks.get(task.job_id) is task:
                del self._tasks[task.job_id]
            if not self._tasks:
                self._idle.notify_all()
