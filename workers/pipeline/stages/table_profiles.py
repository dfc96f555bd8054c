"""Data-table stage: the tables of a round profiled from its own text chunks, rebuilt
exactly by their recorded ranges (``chunks.stitching``), not by parsing the file again: no
second docreader call, nothing to disagree with what was indexed, and no dependence on how
the chunker split, overlapped or headed the table's pieces."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.statuses import ChunkType
from storage.db.repositories.chunks import ChunkRepository
from workers.pipeline.chunks.stitching import TextSlice, rebuild_markdown
from workers.pipeline.markdown.tables import tables_in
from workers.pipeline.round.runner import Progress, Skip
from workers.pipeline.stages.work import TableWork
from workers.pipeline.tables.profile import profile_table


class TableProfilesStage:
    name = "table_profiles"

    def __init__(self, chunks: ChunkRepository) -> None:
        self._chunks = chunks

    def start(self, work: TableWork) -> Mapping[str, Any] | Skip:
        return {}

    def run(self, work: TableWork, progress: Progress) -> Mapping[str, Any]:
        texts = self._chunks.list_of_types(work.knowledge.id, work.attempt, (ChunkType.TEXT,))
        markdown = rebuild_markdown(
            [TextSlice(c.chunk_index, c.content, c.start_at, c.end_at) for c in texts]
        )
        work.profiles = [profile_table(table) for table in tables_in(markdown)]
        # The table chunks are numbered after the text chunks, so a listing shows them last.
        work.first_index = max((c.chunk_index for c in texts), default=-1) + 1
        return {"tables": len(work.profiles)}
