"""Queueing a knowledge base's wiki ingest: what a round's wiki subtask and housekeeping's
re-trigger call. One wiki:ingest task per knowledge base and window
(task_specs.wiki_ingest), so a batch of uploads is ingested by one task.

A top-level module, as profile_request is: the pipeline and housekeeping call it, and it
imports neither."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from core.payloads import WikiIngestPayload
from storage.queue.base import QueueError, TaskQueue
from workers import task_specs

log = logging.getLogger(__name__)


def request_wiki_ingest(
    queue: TaskQueue, knowledge_base_id: str, *, now: Callable[[], float] = time.time
) -> str | None:
    """The job id of the window's wiki:ingest task (queued, or the one already waiting or
    running); None when the queue refused (logged: the pending ingest stays, and
    housekeeping re-triggers the knowledge base)."""
    spec = task_specs.wiki_ingest(WikiIngestPayload(knowledge_base_id), now())
    try:
        return queue.enqueue(spec)
    except QueueError as exc:
        log.warning("knowledge base %s: wiki ingest not queued: %s", knowledge_base_id, exc)
        return None
