"""Queueing what comes after a round's images: knowledge:post_process, once the last image
is done (spec: checkAndFinalizeAllImages). The enqueue is tried 3 times in place; if it
still fails, QueueError goes up and the caller's task is retried, so the round never stays
in processing with nothing queued to finish it."""

from __future__ import annotations

import logging
import time

from core.payloads import KnowledgePostProcessPayload
from storage.queue.base import QueueError, TaskQueue
from workers import task_specs

log = logging.getLogger(__name__)

ENQUEUE_TRIES = 3
ENQUEUE_PAUSE_S = 0.5


def enqueue_post_process(queue: TaskQueue, payload: KnowledgePostProcessPayload) -> None:
    for tries in range(1, ENQUEUE_TRIES + 1):
        try:
            queue.enqueue(task_specs.knowledge_post_process(payload))
            return
        except QueueError as exc:
            if tries == ENQUEUE_TRIES:
                raise
            log.warning(
                "enqueue of the post-processing of knowledge %s failed (try %d): %s",
                payload.knowledge_id,
                tries,
                exc,
            )
            time.sleep(ENQUEUE_PAUSE_S)
