"""datatable:summary — the tables of a tabular knowledge (csv, xlsx, xls) profiled into
``table_summary`` and ``table_column`` chunks, so questions about a table's columns,
ranges and frequent values find an answer (spec: TypeDataTableSummary): the stages of
``table_stages`` given to a ``DataTableRound``.

The tables are read back from the round's own text chunks (``stages.table_profiles``);
each gets one summary chunk, then one chunk per column (``stages.table_chunks``), embedded
and indexed (``stages.table_index``).

The round's document task queues it as it completes
(``enqueue_data_table_summary_if_needed``); it runs while the round is processing,
finalizing or completed. It writes only while the knowledge is still at its attempt in one
of those states (the write locks the row and checks), and checks again around every
embedding batch and once the index is written: a round that was reparsed, cancelled or
deleted meanwhile gets back nothing — what this task wrote is removed again.

Its progress is the step span ``postprocess.datatable`` in the round's tree, under the
postprocess stage, so watchers and GetSpans see it run, finish with its counts, or fail.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from core.effective_config import resolve
from core.extensions import DATA_TABLE_EXTENSIONS
from core.payloads import DataTableSummaryPayload
from core.statuses import Stage as StageName
from storage.db.models import Knowledge
from storage.queue.base import QueueError
from workers import task_specs
from workers.pipeline.chunks.indexing import ChunkIndexer
from workers.pipeline.parts import DataTableParts, DataTableRoundParts, TableStageParts
from workers.pipeline.round.checkpoint import RoundCheckpoint, row_is_current
from workers.pipeline.round.parts import QueueParts
from workers.pipeline.round.runner import RoundRunner, Stage
from workers.pipeline.round.spans import SpanTracker, StepSpans, stage_span_id
from workers.pipeline.stages.table_chunks import (
    TABLE_CHUNK_TYPES,
    WRITABLE_STATUSES,
    TableChunksStage,
)
from workers.pipeline.stages.table_index import TableIndexStage
from workers.pipeline.stages.table_profiles import TableProfilesStage
from workers.pipeline.stages.work import TableWork
from workers.pipeline.tables.text import ProfileSummarizer, TableSummarizer

log = logging.getLogger(__name__)

# The round's span tree gets this step under its postprocess stage.
STEP_SPAN = "postprocess.datatable"
STEP_FAILED = "DATA_TABLE_FAILED"


def table_stages(
    parts: TableStageParts, checkpoint: RoundCheckpoint, summarizer: TableSummarizer
) -> Sequence[Stage[TableWork]]:
    """The data-table task: its stages in order, each given what it uses."""
    indexer = ChunkIndexer(parts.embedders, parts.index, parts.settings.models.embed_batch_size)
    return (
        TableProfilesStage(parts.chunks),
        TableChunksStage(parts.chunks, summarizer),
        TableIndexStage(indexer, checkpoint),
    )


def enqueue_data_table_summary_if_needed(
    parts: QueueParts, knowledge: Knowledge, attempt: int
) -> bool:
    """Queue datatable:summary of round ``attempt`` when the knowledge is a table (csv,
    xlsx, xls); returns whether it was queued. A refusing queue is logged, not raised:
    the summary is an extra, and the document stays searchable without it."""
    if (knowledge.file_type or "").lower() not in DATA_TABLE_EXTENSIONS:
        return False
    payload = DataTableSummaryPayload(
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        knowledge_base_id=knowledge.knowledge_base_id,
        attempt=attempt,
    )
    try:
        parts.queue.enqueue(task_specs.data_table_summary(payload))
    except QueueError as exc:
        log.warning("enqueue of the table summary of knowledge %s failed: %s", knowledge.id, exc)
        return False
    return True


def summarize_data_tables(
    parts: DataTableParts,
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
    knowledge = parts.knowledges.get(payload.knowledge_id, None)
    if not row_is_current(knowledge, attempt, WRITABLE_STATUSES):
        log.info(
            "knowledge %s attempt %s: no table summary, not current", payload.knowledge_id, attempt
        )
        return 0
    kb = parts.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if kb is None:
        log.info("knowledge %s: its knowledge base is gone", knowledge.id)
        return 0
    config = resolve(kb.config or {}, knowledge.process_overrides)
    work = TableWork(knowledge, attempt, config, kb.embedding_model_key)
    checkpoint = RoundCheckpoint(parts, knowledge.id, attempt, statuses=WRITABLE_STATUSES)
    stages = table_stages(parts, checkpoint, summarizer or ProfileSummarizer())
    task = DataTableRound(parts, work, checkpoint, stages)
    if not task.execute(work):
        return 0
    task.step.close()
    log.info(
        "knowledge %s attempt %s: %d tables profiled into %d chunks",
        knowledge.id,
        attempt,
        len(work.profiles),
        len(work.rows),
    )
    return len(work.rows)


class DataTableRound(RoundRunner[TableWork, DataTableRoundParts]):
    """What the ends of the task mean: done (the step ends with its counts), failed (the
    step fails and the queue retries), stopped (the round was taken over)."""

    def __init__(
        self,
        parts: DataTableRoundParts,
        work: TableWork,
        checkpoint: RoundCheckpoint,
        stages: Sequence[Stage[TableWork]],
    ) -> None:
        knowledge = work.knowledge
        self.tracker = SpanTracker(
            parts.spans,
            parts.publisher,
            tenant_id=knowledge.tenant_id,
            knowledge_id=knowledge.id,
            attempt=work.attempt,
        )
        self.step = StepSpans(self.tracker, STEP_SPAN)
        super().__init__(
            parts, knowledge.id, work.attempt, self.step, stages, statuses=WRITABLE_STATUSES
        )
        self.checkpoint = checkpoint

    def open(self, work: TableWork) -> None:
        knowledge = work.knowledge
        self.tracker.begin_step(
            STEP_SPAN,
            stage=StageName.POSTPROCESS,
            parent_id=stage_span_id(
                self.parts.spans, knowledge.id, work.attempt, StageName.POSTPROCESS
            ),
            inputs={"file_name": knowledge.file_name or "", "file_type": knowledge.file_type or ""},
        )

    def between_stages(self, done: Stage[TableWork], work: TableWork) -> None:
        """Nothing to ask: the write is guarded itself and the index checks every batch."""

    def finish(self, work: TableWork) -> None:
        # A round ended while we indexed was cleaned by the chunks it found, maybe before
        # our index rows existed.
        self.checkpoint.check(fresh=True)

    def remove_written(self, work: TableWork) -> None:
        """This task's rows only, index first (as round cleanup): the round's text chunks
        belong to whoever ends or keeps the round."""
        if work.planned and work.model_key:
            self.parts.index.delete_by_chunk_ids(work.model_key, [p.id for p in work.planned])
        self.parts.chunks.delete_of_types(work.knowledge.id, work.attempt, TABLE_CHUNK_TYPES)

    def failed(self, exc: Exception, work: TableWork) -> None:
        self.remove_written(work)
        self.tracker.fail(STEP_SPAN, STEP_FAILED, f"{type(exc).__name__}: {exc}")
        raise exc
