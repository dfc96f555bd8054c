"""The summary as a post-processing subtask kind (spec: willSpawnSummary): one for a round
whose effective config enables the summary and that has text chunks; queued on the summary
queue after its state is set pending, so the task always finds it planned."""

from __future__ import annotations

import logging

from core.payloads import SummaryPayload
from core.statuses import ChunkType
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.summaries import SummaryRepository
from storage.queue.base import QueueError, TaskQueue
from workers import task_specs
from workers.pipeline.stages.work import DocumentWork

log = logging.getLogger(__name__)


class SummarySubtask:
    name = "summary"

    def __init__(
        self, queue: TaskQueue, summaries: SummaryRepository, chunks: ChunkRepository
    ) -> None:
        self._queue = queue
        self._summaries = summaries
        self._chunks = chunks

    def planned(self, work: DocumentWork) -> int:
        if not work.config.summary_enabled:
            return 0
        # The plan is gone when the round's images were described by tasks of their own.
        texts = (
            len(work.plan.chunks)
            if work.plan is not None
            else self._chunks.count_of_types(work.knowledge.id, work.attempt, [ChunkType.TEXT])
        )
        return int(texts > 0)

    def enqueue(self, work: DocumentWork) -> int:
        knowledge = work.knowledge
        if not self._summaries.plan(knowledge.id, work.attempt):
            return 0
        payload = SummaryPayload(
            tenant_id=knowledge.tenant_id,
            knowledge_id=knowledge.id,
            knowledge_base_id=knowledge.knowledge_base_id,
            attempt=work.attempt,
        )
        try:
            self._queue.enqueue(task_specs.summary(payload))
        except QueueError as exc:
            # Counted off by the plan's reconciliation; the summary says it never ran.
            log.warning("enqueue of the summary of knowledge %s failed: %s", knowledge.id, exc)
            self._summaries.abandon(knowledge.id, work.attempt)
            return 0
        return 1
