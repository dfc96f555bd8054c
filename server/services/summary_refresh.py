"""Queueing a summary refresh (workers.enrichment.summary_refresh): after an edit of the
summary's inputs, and on demand (RegenerateSummary).

An edit has committed by the time its refresh is queued: a queue that is down does not undo
it (the summary stays pending and stale; housekeeping's Sweep B fails it once the summary
threshold has passed, and RegenerateSummary queues it again). RegenerateSummary queues
nothing else, so there a queue that is down is UNAVAILABLE.
"""

from __future__ import annotations

import logging

from core.effective_config import resolve
from core.errors import FailedPrecondition, NotFound
from core.payloads import SummaryRefreshPayload
from core.statuses import ParseStatus
from server.services.identity import Identity
from server.services.lookup import owned_knowledge
from server.services.parts import SummaryRefreshParts
from server.services.tags import TaggedKnowledge, tagged
from storage.db.models import Knowledge
from storage.queue.base import QueueError, TaskQueue
from workers import task_specs

log = logging.getLogger(__name__)

KNOWLEDGE = "sluice.v1.Knowledge"
# PreconditionFailure types.
NO_SUMMARY_MODEL = "NO_SUMMARY_MODEL"
NOT_COMPLETED = "KNOWLEDGE_NOT_COMPLETED"


def queue_refresh(queue: TaskQueue, knowledge: Knowledge, sequence: int) -> None:
    """Queue refresh ``sequence`` of ``knowledge`` (a duplicate of one waiting is a no-op);
    QueueError when the queue is down."""
    payload = SummaryRefreshPayload(
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        knowledge_base_id=knowledge.knowledge_base_id,
        sequence=sequence,
    )
    queue.enqueue(task_specs.summary_refresh(payload))


def queue_refresh_after_edit(queue: TaskQueue, knowledge: Knowledge, sequence: int | None) -> None:
    """The refresh an edit called for (``sequence``; None: none); a queue that is down is
    logged, the edit stands."""
    if sequence is None:
        return
    try:
        queue_refresh(queue, knowledge, sequence)
    except QueueError as exc:
        log.warning("summary refresh of knowledge %s not queued: %s", knowledge.id, exc)


class SummaryRefreshService:
    def __init__(self, ctx: SummaryRefreshParts) -> None:
        self._ctx = ctx

    def regenerate(self, identity: Identity, knowledge_id: str) -> TaggedKnowledge:
        """Queue a refresh of a completed knowledge's summary; the knowledge with its
        summary pending (or already processing: a refresh is running, and this one
        follows it)."""
        knowledge = owned_knowledge(self._ctx, identity, knowledge_id)
        kb = self._ctx.knowledge_bases.get(identity.scope, knowledge.knowledge_base_id)
        if kb is None:
            raise NotFound(KNOWLEDGE, knowledge_id)
        config = resolve(kb.config or {}, knowledge.process_overrides)
        if not config.summary_model.configured:
            raise FailedPrecondition(
                NO_SUMMARY_MODEL,
                knowledge.knowledge_base_id,
                f"knowledge base {knowledge.knowledge_base_id} names no summary model "
                "(config.summary.model)",
            )
        request = self._ctx.edits.request_summary_refresh(knowledge.id, identity.scope)
        if request is None:
            raise NotFound(KNOWLEDGE, knowledge_id)
        if request.sequence is None:
            raise FailedPrecondition(
                NOT_COMPLETED,
                knowledge.id,
                f"knowledge {knowledge.id} is {request.knowledge.parse_status}: its summary "
                f"can be regenerated once it is {ParseStatus.COMPLETED}",
            )
        queue_refresh(self._ctx.queue, request.knowledge, request.sequence)
        return tagged(self._ctx.tags, request.knowledge)
