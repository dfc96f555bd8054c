"""Data-table stage: per table one ``table_summary`` chunk, then one ``table_column`` chunk
per column (whose parent is the summary), numbered after the text chunks, with ids from
``chunk_id`` so a retry rewrites the same rows. They are written only while the knowledge is
still at its attempt in a writable state (the write locks the row and checks)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.statuses import ChunkType, ParseStatus
from storage.db.models import Knowledge
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.resume import PlannedChunk
from workers.pipeline.round.runner import Progress, Skip
from workers.pipeline.stages.chunking import chunk_id
from workers.pipeline.stages.work import TableWork
from workers.pipeline.tables.profile import TableProfile
from workers.pipeline.tables.text import TableSummarizer, column_text, summary_text, table_label

# The task runs after the round's document task, while the round is processing, finalizing
# or completed.
WRITABLE_STATUSES = (ParseStatus.PROCESSING, ParseStatus.FINALIZING, ParseStatus.COMPLETED)
TABLE_CHUNK_TYPES = (ChunkType.TABLE_SUMMARY, ChunkType.TABLE_COLUMN)
WORKBOOK_TYPES = frozenset({"xlsx", "xls"})


class TableChunksStage:
    name = "table_chunks"

    def __init__(self, chunks: ChunkRepository, summarizer: TableSummarizer) -> None:
        self._chunks = chunks
        self._summarizer = summarizer

    def start(self, work: TableWork) -> Mapping[str, Any] | Skip:
        return {}

    def run(self, work: TableWork, progress: Progress) -> Mapping[str, Any]:
        work.planned, work.rows = table_chunks(
            work.knowledge, work.attempt, work.profiles, work.first_index, self._summarizer
        )
        if not self._chunks.replace_of_types(
            work.knowledge.id,
            work.attempt,
            TABLE_CHUNK_TYPES,
            work.rows,
            statuses=WRITABLE_STATUSES,
        ):
            raise Superseded(work.knowledge.id)
        summaries = sum(row.chunk_type == ChunkType.TABLE_SUMMARY for row in work.rows)
        return {
            "table_summary_chunks": summaries,
            "table_column_chunks": len(work.rows) - summaries,
        }


def table_chunks(
    knowledge: Knowledge,
    attempt: int,
    profiles: Sequence[TableProfile],
    first_index: int,
    summarizer: TableSummarizer,
) -> tuple[list[PlannedChunk], list[NewChunk]]:
    """Per table its summary chunk, then its column chunks, indexed from ``first_index``."""
    document = knowledge.file_name or knowledge.title or "the file"
    workbook = (knowledge.file_type or "").lower() in WORKBOOK_TYPES
    planned: list[PlannedChunk] = []
    rows: list[NewChunk] = []

    def add(chunk_type: str, content: str, parent: str | None, meta: dict[str, Any]) -> str:
        index = first_index + len(rows)
        new_id = chunk_id(knowledge.id, attempt, chunk_type, index)
        planned.append(PlannedChunk(new_id, index, content, ""))
        rows.append(
            NewChunk(
                id=new_id,
                tenant_id=knowledge.tenant_id,
                knowledge_base_id=knowledge.knowledge_base_id,
                knowledge_id=knowledge.id,
                attempt=attempt,
                chunk_index=index,
                chunk_type=chunk_type,
                content=content,
                parent_chunk_id=parent,
                meta=meta,
            )
        )
        return new_id

    for position, profile in enumerate(profiles, start=1):
        label = table_label(
            profile, document, position=position, count=len(profiles), workbook=workbook
        )
        where = {"table": position, "title": profile.title}
        summary_id = add(
            ChunkType.TABLE_SUMMARY,
            summary_text(profile, label, summarizer.summarize(profile, label)),
            None,
            {**where, "rows": profile.row_count, "columns": profile.column_count},
        )
        for column in profile.columns:
            add(
                ChunkType.TABLE_COLUMN,
                column_text(column, label),
                summary_id,
                {**where, "column": column.name, "type": str(column.type)},
            )
    return planned, rows
