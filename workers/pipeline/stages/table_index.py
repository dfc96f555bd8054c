"""Data-table stage: the table chunks embedded and indexed like the text chunks (when the
knowledge base indexes at all), the round's checkpoint asked around every batch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.index_sides import index_sides
from workers.pipeline.chunks.indexing import ChunkIndexer
from workers.pipeline.round.checkpoint import RoundCheckpoint
from workers.pipeline.round.runner import Progress, Skip
from workers.pipeline.stages.work import TableWork


class TableIndexStage:
    name = "table_index"

    def __init__(self, indexer: ChunkIndexer, checkpoint: RoundCheckpoint) -> None:
        self._indexer = indexer
        self._checkpoint = checkpoint

    def start(self, work: TableWork) -> Mapping[str, Any] | Skip:
        return {}

    def run(self, work: TableWork, progress: Progress) -> Mapping[str, Any]:
        indexed = 0
        sides = index_sides(work.model_key, work.config)
        if work.planned and sides.any:
            indexed = self._indexer.index_chunks(
                work.knowledge,
                work.model_key,
                work.config.embedding,
                work.planned,
                check=self._checkpoint.check,
                keyword=sides.keyword,
            ).indexed
        return {"chunks_indexed": indexed}
