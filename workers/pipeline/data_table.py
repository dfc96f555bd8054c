"""datatable:summary — the tables of a tabular knowledge (csv, xlsx, xls) profiled into
``table_summary`` and ``table_column`` chunks, so questions about a table's columns,
ranges and frequent values find an answer (spec: TypeDataTableSummary).

The tables are read back from the round's own text chunks, rebuilt exactly by their
recorded ranges (``chunk_stitching``), not by parsing the file again: no second docreader
call, nothing to disagree with what was indexed, and no dependence on how the chunker
split, overlapped or headed the table's pieces. Each table gets one summary chunk, then
one chunk per column (whose parent is the summary), numbered after the text chunks so a
listing shows them last, with ids from ``chunk_id`` so a retry rewrites the same rows.

The task runs after the round's document task, while the round is processing, finalizing
or completed. It writes only while the knowledge is still at its attempt in one of those
states (the write locks the row and checks), and checks again around every embedding
batch and once the index is written: a round that was reparsed, cancelled or deleted
meanwhile gets back nothing — what this task wrote is removed again.

Its progress is the step span ``postprocess.datatable`` in the round's tree, under the
postprocess stage, so watchers and GetSpans see it run, finish with its counts, or fail.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.statuses import ChunkType, ParseStatus, Stage
from workers.context import WorkerContext
from workers.payloads import DataTableSummaryPayload
from workers.pipeline.chunks.indexing import index_chunks
from workers.pipeline.chunks.stitching import TextSlice, rebuild_markdown
from workers.pipeline.effective_config import resolve
from workers.pipeline.markdown.tables import tables_in
from workers.pipeline.round.checkpoint import RoundCheckpoint, round_is_current, row_is_current
from workers.pipeline.round.cleanup import close_round_spans, stop_reason
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.resume import PlannedChunk
from workers.pipeline.round.spans import SpanTracker
from workers.pipeline.stages import chunk_id
from workers.pipeline.tables.profile import TableProfile, profile_table
from workers.pipeline.tables.text import (
    ProfileSummarizer,
    TableSummarizer,
    column_text,
    summary_text,
    table_label,
)

log = logging.getLogger(__name__)

WRITABLE_STATUSES = (ParseStatus.PROCESSING, ParseStatus.FINALIZING, ParseStatus.COMPLETED)
TABLE_CHUNK_TYPES = (ChunkType.TABLE_SUMMARY, ChunkType.TABLE_COLUMN)
WORKBOOK_TYPES = frozenset({"xlsx", "xls"})
# The round's span tree gets this step under its postprocess stage.
STEP_SPAN = "postprocess.datatable"
STEP_FAILED = "DATA_TABLE_FAILED"


def summarize_data_tables(
    ctx: WorkerContext,
    payload: DataTableSummaryPayload,
    *,
    summarizer: TableSummarizer | None = None,
) -> int:
    """Write the round's table chunks; returns how many (0 when it is not the round's
    turn any more). Raises on embedding or index errors, after removing what it wrote,
    so the queue retries.

    The work is the step span ``postprocess.datatable`` of the round, under its postprocess
    stage: running, then done with what was written, failed with the error, or cancelled
    when the round was taken over meanwhile."""
    attempt = payload.attempt
    knowledge = ctx.knowledges.get(payload.knowledge_id, None)
    if not row_is_current(knowledge, attempt, WRITABLE_STATUSES):
        log.info("knowledge %s attempt %s: no table summary, not current", payload.knowledge_id,
                 attempt)
        return 0
    kb = ctx.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if kb is None:
        log.info("knowledge %s: its knowledge base is gone", knowledge.id)
        return 0
    config = resolve(kb.config or {}, knowledge.process_overrides)
    tracker = SpanTracker(
        ctx.spans, ctx.publisher, tenant_id=knowledge.tenant_id, knowledge_id=knowledge.id,
        attempt=attempt,
    )
    tracker.begin_step(
        STEP_SPAN,
        stage=Stage.POSTPROCESS,
        parent_id=_stage_span_id(ctx, knowledge.id, attempt, Stage.POSTPROCESS),
        inputs={"file_name": knowledge.file_name or "", "file_type": knowledge.file_type or ""},
    )
    repo = ctx.chunks
    model_key = kb.embedding_model_key
    guard = RoundCheckpoint(ctx, knowledge.id, attempt, statuses=WRITABLE_STATUSES)
    planned: list[PlannedChunk] = []
    try:
        profiles, first_index = _round_tables(repo, knowledge.id, attempt)
        planned, rows = table_chunks(
            knowledge, attempt, profiles, first_index, summarizer or ProfileSummarizer()
        )
        if not repo.replace_of_types(
            knowledge.id, attempt, TABLE_CHUNK_TYPES, rows, statuses=WRITABLE_STATUSES
        ):
            raise Superseded(knowledge.id)
        indexed = 0
        if planned and config.needs_embedding:
            indexed = index_chunks(
                ctx, knowledge, model_key, config.embedding, planned, check=guard.check
            ).indexed
        # A round ended while we indexed was cleaned by the chunks it found, maybe before
        # our index rows existed.
        guard.check(fresh=True)
    except Superseded:
        _remove_written(ctx, repo, knowledge.id, attempt, model_key, planned)
        _close_taken_over(ctx, knowledge.id, attempt)
        log.info("knowledge %s attempt %s: taken over, table chunks removed", knowledge.id,
                 attempt)
        return 0
    except Exception as exc:
        _remove_written(ctx, repo, knowledge.id, attempt, model_key, planned)
        # Failing because the round was taken over meanwhile is a stop, not a retry.
        if not round_is_current(ctx, knowledge.id, attempt, WRITABLE_STATUSES):
            _close_taken_over(ctx, knowledge.id, attempt)
            log.info("knowledge %s attempt %s: taken over while failing", knowledge.id, attempt)
            return 0
        tracker.fail(STEP_SPAN, STEP_FAILED, f"{type(exc).__name__}: {exc}")
        raise
    summaries = sum(row.chunk_type == ChunkType.TABLE_SUMMARY for row in rows)
    tracker.end(
        STEP_SPAN,
        {
            "tables": len(profiles),
            "table_summary_chunks": summaries,
            "table_column_chunks": len(rows) - summaries,
            "chunks_indexed": indexed,
        },
    )
    log.info("knowledge %s attempt %s: %d tables profiled into %d chunks", knowledge.id,
             attempt, len(profiles), len(rows))
    return len(rows)


def table_chunks(
    knowledge: Any,
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


def _round_tables(
    repo: ChunkRepository, knowledge_id: str, attempt: int
) -> tuple[list[TableProfile], int]:
    """The profiles of the tables in the round's text, and the first chunk index after
    its text chunks."""
    texts = repo.list_of_types(knowledge_id, attempt, (ChunkType.TEXT,))
    markdown = rebuild_markdown(
        [TextSlice(c.chunk_index, c.content, c.start_at, c.end_at) for c in texts]
    )
    profiles = [profile_table(table) for table in tables_in(markdown)]
    return profiles, max((c.chunk_index for c in texts), default=-1) + 1


def _stage_span_id(ctx: WorkerContext, knowledge_id: str, attempt: int, stage: str) -> str | None:
    """The id of the round's span of ``stage``; None for a round without one."""
    spans = ctx.spans.list(knowledge_id, attempt, tenant_id=None)
    return next((s.id for s in spans if s.name == stage), None)


def _close_taken_over(ctx: WorkerContext, knowledge_id: str, attempt: int) -> None:
    """Close the round's open spans (this step's among them) with why it stopped; a
    knowledge that is gone took its spans with it."""
    reason = stop_reason(ctx, knowledge_id, attempt)
    if reason is not None:
        close_round_spans(ctx, knowledge_id, attempt, *reason)


def _remove_written(
    ctx: WorkerContext,
    repo: ChunkRepository,
    knowledge_id: str,
    attempt: int,
    model_key: str,
    planned: Sequence[PlannedChunk],
) -> None:
    """This task's rows only, index first (as round_cleanup): the round's text chunks
    belong to whoever ends or keeps the round."""
    if planned and model_key:
        ctx.index.delete_by_chunk_ids(model_key, [p.id for p in planned])
    repo.delete_of_types(knowledge_id, attempt, TABLE_CHUNK_TYPES)
