"""requestKnowledgeBaseProfileRefresh (spec: «Обновление описания базы знаний»): what every
trigger of a knowledge base's profile calls — a summary's end (completed or failed), the end
of a round's post-processing planning, a knowledge's deletion. It queues one kb:profile task
per knowledge base and 30-second window (task_specs.kb_profile), and only for a document
knowledge base whose config enables the profile; the on-demand RPC queues its own.

A top-level module, as task_specs is: the pipeline, the enrichment tasks and the lifecycle
all call it, and it imports none of them."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol

from core.effective_config import resolve
from core.payloads import KnowledgeBaseProfilePayload
from core.statuses import KnowledgeBaseType
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.queue.base import QueueError, TaskQueue
from workers import task_specs

log = logging.getLogger(__name__)


class ProfileRequestParts(Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def queue(self) -> TaskQueue: ...


def request_profile_refresh(
    parts: ProfileRequestParts, knowledge_base_id: str, *, now: Callable[[], float] = time.time
) -> str | None:
    """The job id of the window's kb:profile task (queued, or the one already waiting or
    running); None when the knowledge base is gone, not a document one, has the profile
    off, or the queue refused (logged: a trigger never fails what triggered it)."""
    kb = parts.knowledge_bases.get(None, knowledge_base_id)
    if kb is None or kb.type != KnowledgeBaseType.DOCUMENT:
        return None
    if not resolve(kb.config or {}, None).profile_enabled:
        return None
    spec = task_specs.kb_profile(KnowledgeBaseProfilePayload(knowledge_base_id), now())
    try:
        return parts.queue.enqueue(spec)
    except QueueError as exc:
        log.warning("knowledge base %s: profile refresh not queued: %s", knowledge_base_id, exc)
        return None
