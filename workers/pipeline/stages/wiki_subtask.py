"""The wiki as a post-processing subtask kind (spec: willSpawnWiki = the knowledge base's
wiki_enabled and the round has text chunks): one slot per round. Queueing it writes the
round's pending ingest (its knowledge and attempt) and asks for the knowledge base's
debounced wiki:ingest task, which ends the slot (workers.enrichment.wiki).

A refused enqueue still counts the slot as queued: the pending ingest exists, and any
ingest task of the knowledge base (or housekeeping's re-trigger) may end it; counting it
off here as well would end it twice."""

from __future__ import annotations

from core.statuses import ChunkType
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.wiki_ops import WikiOpRepository
from storage.queue.base import TaskQueue
from workers.pipeline.stages.work import DocumentWork
from workers.wiki_request import request_wiki_ingest


class WikiSubtask:
    name = "wiki"

    def __init__(self, queue: TaskQueue, ops: WikiOpRepository, chunks: ChunkRepository) -> None:
        self._queue = queue
        self._ops = ops
        self._chunks = chunks

    def planned(self, work: DocumentWork) -> int:
        if not work.config.wiki_enabled:
            return 0
        texts = (
            len(work.plan.chunks)
            if work.plan is not None
            else self._chunks.count_of_types(work.knowledge.id, work.attempt, [ChunkType.TEXT])
        )
        return int(texts > 0)

    def enqueue(self, work: DocumentWork) -> int:
        knowledge = work.knowledge
        self._ops.add_ingest(
            knowledge.tenant_id, knowledge.knowledge_base_id, knowledge.id, work.attempt
        )
        request_wiki_ingest(self._queue, knowledge.knowledge_base_id)
        return 1
