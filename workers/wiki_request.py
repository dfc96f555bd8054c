"""Queueing a knowledge base's wiki ingest: what a round's wiki subtask and housekeeping's
re-trigger call. One wiki:ingest task per knowledge base and debounce window
(task_specs.wiki_ingest), which starts once its window is over: every ingest queued
within the window is pending by then, so a batch of uploads is ingested by one task, and
no ingest can be queued into a task that has already looked for its last one.

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


# Beyond the window's end, for clocks of enqueuers and workers that differ a little.
CLOCK_MARGIN_S = 1.0


def request_wiki_ingest(
    queue: TaskQueue,
    knowledge_base_id: str,
    window_s: float,
    *,
    now: Callable[[], float] = time.time,
) -> str | None:
    """The job id of the ``window_s`` window's wiki:ingest task (queued, or the one already
    waiting); None when the queue refused (logged: the pending ingest stays, and
    housekeeping re-triggers the knowledge base)."""
    window = int(now() // window_s)
    start = (window + 1) * window_s + min(CLOCK_MARGIN_S, window_s)
    spec = task_specs.wiki_ingest(WikiIngestPayload(knowledge_base_id, not_before=start), window)
    try:
        return queue.enqueue(spec)
    except QueueError as exc:
        log.warning("knowledge base %s: wiki ingest not queued: %s", knowledge_base_id, exc)
        return None
