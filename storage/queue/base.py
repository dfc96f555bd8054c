"""What a task is and what a task queue promises, independent of how tasks are run.

Handlers are plain module-level functions named by dotted path
(``def handler(payload: dict[str, Any]) -> None``), so enqueueing needs nothing but strings
and JSON; the adapters (RQ in full mode, an in-process executor in lite mode) import and call
them where they run.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from core.errors import Internal, SluiceError

# RQ accepts only these characters in job ids; the lite executor follows the same rule so a
# TaskSpec valid for one adapter is valid for the other.
JOB_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]+")
# How long after a worker took a task the task still counts as queued for housekeeping:
# the worker's first heartbeat (the guarded move to processing) lands well within it.
PICKUP_GRACE_S = 30.0
_DOTTED_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+")


class QueueName(StrEnum):
    """The spec's queues (task.go), in the workers' default priority order; ``low`` is the
    maintenance queue. Each is served by a worker pool (storage.queue.pools). Not here: the
    spec's ``chat_attachment`` (a chat session's temporary documents: Sluice has no chat
    sessions), ``sync`` and ``memory`` (data-source sync and personal memory, out of scope)."""

    DEFAULT = "default"
    # Ahead of the images: a document's post-processing finishes a round already indexed.
    POSTPROCESS = "postprocess"
    MULTIMODAL = "multimodal"
    SUMMARY = "summary"
    QUESTION = "question"
    GRAPH = "graph"
    WIKI = "wiki"
    LOW = "low"


class QueueError(SluiceError):
    """A queue operation failed (enqueue, cancel, backend unreachable, misuse)."""

    component = "task queue"


class NotInTaskError(QueueError, Internal):
    """``attempt_info()`` / ``cancel_requested()`` was called outside a running handler."""


class TaskInterrupted(BaseException):
    """The worker is shutting down: the running handler stopped at a checkpoint (or was
    stopped at the shutdown deadline). The adapter hands the task back to the front of its
    queue without using up an attempt. A BaseException, so a handler's ``except Exception``
    never mistakes it for a failure to retry."""


@dataclass(frozen=True)
class TaskSpec:
    """One unit of work.

    ``job_id`` is the task's identity: enqueueing an id that is already waiting, scheduled for
    retry or running is a no-op that returns that id. Retry ``k`` (1-based) waits
    ``retry_intervals[min(k, len) - 1]`` seconds (none: 0). ``on_final_failure`` names
    ``def cb(payload: dict[str, Any], error: str) -> None``, called once, after the last
    attempt failed (never for a task stopped by ``cancel_group``). ``group`` (e.g. the
    knowledge id) lets queued tasks be found and cancelled together. ``at_front`` queues
    it ahead of the waiting backlog (a round re-enqueued by housekeeping has waited already).
    """

    handler: str
    payload: dict[str, Any]
    queue: QueueName
    job_id: str | None = None
    max_retries: int = 0
    retry_intervals: tuple[int, ...] = ()
    timeout_s: int = 7200
    on_final_failure: str | None = None
    group: str | None = None
    at_front: bool = False

    def __post_init__(self) -> None:
        if not _DOTTED_PATH.fullmatch(self.handler):
            raise ValueError(f"handler must be a dotted path, got {self.handler!r}")
        if self.on_final_failure is not None and not _DOTTED_PATH.fullmatch(self.on_final_failure):
            raise ValueError(
                f"on_final_failure must be a dotted path, got {self.on_final_failure!r}"
            )
        if not isinstance(self.queue, QueueName):
            raise ValueError(f"queue must be a QueueName, got {self.queue!r}")
        if self.job_id is not None and not JOB_ID_PATTERN.fullmatch(self.job_id):
            raise ValueError(
                f"job_id may contain only letters, digits, '_' and '-', got {self.job_id!r}"
            )
        if self.group is not None and not self.group:
            raise ValueError("group must be non-empty when given")
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if any(interval < 0 for interval in self.retry_intervals):
            raise ValueError("retry_intervals must be >= 0")
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be > 0")

    @property
    def max_attempts(self) -> int:
        return self.max_retries + 1

    def retry_delay(self, retry_number: int) -> int:
        """Seconds to wait before retry ``retry_number`` (1-based)."""
        if not self.retry_intervals:
            return 0
        return self.retry_intervals[min(retry_number, len(self.retry_intervals)) - 1]


@dataclass(frozen=True)
class AttemptInfo:
    """Where the running handler stands in its retry budget (the spec's isLastRetry)."""

    job_id: str
    group: str | None
    attempt_number: int
    max_attempts: int
    # The attempt's time limit (0: none known), so long work can say before it is hit.
    timeout_s: int = 0
    # When the limit's clock started (time.monotonic), as the adapter set the attempt up:
    # before the handler is imported and its context built, which count against it.
    started_at: float = field(default_factory=time.monotonic, compare=False)

    @property
    def is_last_attempt(self) -> bool:
        return self.attempt_number >= self.max_attempts


class TaskQueue(Protocol):
    def enqueue(self, spec: TaskSpec) -> str:
        """Queue ``spec``; returns its job id (the existing one when deduplicated)."""
        ...

    def is_queued(self, group: str) -> bool:
        """A task of ``group`` is waiting, scheduled for retry, or was taken by a worker less
        than ``PICKUP_GRACE_S`` ago (it may not have written its first heartbeat yet); tasks
        running for longer don't count."""
        ...

    def has_live_task(self, group: str) -> bool:
        """A task of ``group`` is waiting, scheduled for retry, or running with a live worker
        (full mode: its heartbeat key is fresh, or it was taken less than a heartbeat TTL
        ago; lite mode: this process holds it). False means nothing will run the group's
        work unless it is queued again."""
        ...

    def forget_dead_tasks(self, group: str) -> int:
        """Drop the records of ``group``'s tasks whose worker died mid-run, so their job ids
        can be queued again; returns how many. Lite mode: none (its tasks die with it)."""
        ...

    def cancel_group(self, group: str) -> int:
        """Remove waiting tasks of ``group`` and ask its running ones to stop; returns how
        many tasks were removed or asked to stop."""
        ...

    def attempt_info(self) -> AttemptInfo:
        """From inside a running handler: its attempt; raises NotInTaskError elsewhere."""
        ...

    def cancel_requested(self) -> bool:
        """From inside a running handler: ``cancel_group`` was called for its group since it
        started. Long handlers check it between pages/batches/stages."""
        ...

    def shutdown_requested(self) -> bool:
        """From inside a running handler: the process is shutting down. Long handlers check
        it at the same points as ``cancel_requested()`` and raise TaskInterrupted."""
        ...

    def close(self) -> None: ...
