"""Queueing a round's subtasks of one kind, each task on its own: one the queue refuses is
logged and left out, and the post-processing plan's reconciliation counts it off, so the
round never waits for a subtask that does not exist."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from storage.queue.base import QueueError, TaskQueue, TaskSpec

log = logging.getLogger(__name__)


def enqueue_subtasks(
    queue: TaskQueue, kind: str, knowledge_id: str, specs: Iterable[TaskSpec]
) -> int:
    """Queue ``specs`` (subtasks 1, 2, … of ``kind``); how many the queue took."""
    queued = 0
    for number, spec in enumerate(specs, start=1):
        try:
            queue.enqueue(spec)
        except QueueError as exc:
            log.warning(
                "enqueue of %s subtask %s of knowledge %s failed: %s",
                kind,
                number,
                knowledge_id,
                exc,
            )
            continue
        queued += 1
    return queued
