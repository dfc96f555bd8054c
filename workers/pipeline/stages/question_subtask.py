"""Question generation as a post-processing subtask kind (spec: willSpawnQuestion): when
the effective config enables it and the round is indexed (vector or keyword), the round's
text chunks that say more than images (a chunk of a scanned page's image links has no
text to ask about; its pictures' OCR text and captions are found by rows of their own), in
batches of ``BATCH_SIZE``, one
knowledge:question task each (question queue).

With no question model configured the round still plans one batch: its task fails its step
with NO_QUESTION_MODEL, so the timeline says why no question was written."""

from __future__ import annotations

from core.index_sides import index_sides
from core.markdown_images import says_more_than_images
from core.payloads import QuestionBatchPayload
from core.statuses import ChunkType
from storage.db.repositories.chunks import ChunkRepository
from storage.queue.base import TaskQueue
from workers import task_specs
from workers.pipeline.stages.subtask_queueing import enqueue_subtasks
from workers.pipeline.stages.work import DocumentWork

# questionGenChunkBatchSize: the chunks one task asks questions about.
BATCH_SIZE = 20


class QuestionSubtask:
    name = "question"

    def __init__(self, queue: TaskQueue, chunks: ChunkRepository) -> None:
        self._queue = queue
        self._chunks = chunks
        self._batches: dict[tuple[str, int], list[list[str]]] = {}

    def planned(self, work: DocumentWork) -> int:
        return len(self.batches(work))

    def enqueue(self, work: DocumentWork) -> int:
        knowledge = work.knowledge
        specs = (
            task_specs.question_batch(
                QuestionBatchPayload(
                    tenant_id=knowledge.tenant_id,
                    knowledge_id=knowledge.id,
                    knowledge_base_id=knowledge.knowledge_base_id,
                    attempt=work.attempt,
                    batch_index=index,
                    chunk_ids=chunk_ids,
                )
            )
            for index, chunk_ids in enumerate(self.batches(work), start=1)
        )
        return enqueue_subtasks(self._queue, self.name, knowledge.id, specs)

    def batches(self, work: DocumentWork) -> list[list[str]]:
        """The chunk ids of each of the round's batches (read once per round)."""
        key = (work.knowledge.id, work.attempt)
        if key not in self._batches:
            self._batches[key] = self._batches_of(work)
        return self._batches[key]

    def _batches_of(self, work: DocumentWork) -> list[list[str]]:
        config = work.config
        if not (config.question_generation_enabled and index_sides(work.model_key, config).any):
            return []
        ids = [
            c.id
            for c in self._chunks.list_of_types(work.knowledge.id, work.attempt, [ChunkType.TEXT])
            if c.is_enabled and says_more_than_images(c.content)
        ]
        if not ids:
            return []
        if not config.question_model.configured:
            return [[]]  # the one task that says there is no model
        return [ids[i : i + BATCH_SIZE] for i in range(0, len(ids), BATCH_SIZE)]
