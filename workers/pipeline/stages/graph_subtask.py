"""Graph extraction as a post-processing subtask kind (spec: TypeChunkExtract, one task per
chunk of ``selectGraphChunks``): when the effective config's ``graph_enabled`` (the
knowledge base's indexing switch, and extraction enabled), one knowledge:graph_extract task
(graph queue) per graph chunk of the round.

The graph chunks: the round's enabled text chunks that say more than images; a text chunk
that only links images (a scanned page) is represented by its images' ``image_ocr``
children, never their ``image_caption`` ones (a caption describes what the OCR text already
says, and would enter the graph twice).

With no extraction model configured the round still plans one task: it fails its step with
NO_EXTRACT_MODEL, so the timeline says why the graph got nothing (as the questions do)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from core.markdown_images import says_more_than_images
from core.payloads import GraphExtractPayload
from core.statuses import ChunkType
from storage.db.models import Chunk
from storage.db.repositories.chunks import ChunkRepository
from storage.queue.base import TaskQueue
from workers import task_specs
from workers.pipeline.stages.subtask_queueing import enqueue_subtasks
from workers.pipeline.stages.work import DocumentWork


class GraphSubtask:
    name = "graph"

    def __init__(self, queue: TaskQueue, chunks: ChunkRepository) -> None:
        self._queue = queue
        self._chunks = chunks
        self._selected: dict[tuple[str, int], list[str]] = {}

    def planned(self, work: DocumentWork) -> int:
        return len(self.chunk_ids(work))

    def enqueue(self, work: DocumentWork) -> int:
        knowledge = work.knowledge
        specs = (
            task_specs.graph_extract(
                GraphExtractPayload(
                    tenant_id=knowledge.tenant_id,
                    knowledge_id=knowledge.id,
                    knowledge_base_id=knowledge.knowledge_base_id,
                    attempt=work.attempt,
                    chunk_id=chunk,
                    index=index,
                )
            )
            for index, chunk in enumerate(self.chunk_ids(work), start=1)
        )
        return enqueue_subtasks(self._queue, self.name, knowledge.id, specs)

    def chunk_ids(self, work: DocumentWork) -> list[str]:
        """The ids of the round's graph chunks, one task each (read once per round); [""]
        for the one task that says there is no model."""
        key = (work.knowledge.id, work.attempt)
        if key not in self._selected:
            self._selected[key] = self._chunk_ids_of(work)
        return self._selected[key]

    def _chunk_ids_of(self, work: DocumentWork) -> list[str]:
        if not work.config.graph_enabled:
            return []
        rows = self._chunks.list_of_types(
            work.knowledge.id, work.attempt, [ChunkType.TEXT, ChunkType.IMAGE_OCR]
        )
        ids = [c.id for c in select_graph_chunks(rows)]
        if ids and not work.config.extract_model.configured:
            return [""]
        return ids


def select_graph_chunks(rows: Sequence[Chunk]) -> list[Chunk]:
    """selectGraphChunks over a round's text and image_ocr chunks, in text chunk order: a
    text chunk with words of its own, or the OCR texts of a text chunk of only images."""
    ocr_of: dict[str | None, list[Chunk]] = defaultdict(list)
    for row in rows:
        if row.chunk_type == ChunkType.IMAGE_OCR and row.is_enabled and row.content.strip():
            ocr_of[row.parent_chunk_id].append(row)
    selected: list[Chunk] = []
    for row in rows:
        if row.chunk_type != ChunkType.TEXT or not row.is_enabled:
            continue
        if says_more_than_images(row.content):
            selected.append(row)
        else:
            selected += sorted(ocr_of.get(row.id, ()), key=lambda c: c.chunk_index)
    return selected
