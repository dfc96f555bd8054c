"""datatable:summary on real parts: a migrated PostgreSQL (and SQLite, lite mode's
database), milvus-lite, the bundled embedding model, the lite queue. The text chunks are
written by the real chunking stage from a CSV-derived Markdown table, small chunks so the
table is cut into pieces that each repeat its header."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import uuid
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest

from core.effective_config import resolve
from core.payloads import DataTableSummaryPayload
from server.docreader.markdown.tables import markdown_table
from storage.db.models import Knowledge
from storage.events.memory_bus import InMemoryEventBus
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_embeddings import EmbeddingServer, Reply
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext
from workers.embedding.base import EmbeddingError
from workers.pipeline.data_table import enqueue_data_table_summary_if_needed, summarize_data_tables
from workers.pipeline.round.cleanup import RoundProducts, remove_round_products
from workers.pipeline.round.runner import run_stage
from workers.pipeline.round.spans import SpanTracker
from workers.pipeline.round.state import KnowledgeState
from workers.pipeline.stages.chunking import ChunkingStage, chunk_id
from workers.pipeline.stages.work import DocumentWork
from workers.pipeline.tables.profile import TableProfile
from workers.settings_groups import ModelSettings, OutboundSettings

MODEL_KEY = "local/all-MiniLM-L6-v2/384"
CHUNKING = {"chunk_size": 300, "chunk_overlap": 60}
TABLE_TYPES = ("table_summary", "table_column")
STEP = "postprocess.datatable"
ROWS = 40


def sales_csv() -> str:
    """40 rows whose statistics are known exactly (see the assertions)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Region", "Revenue", "Units", "Date", "Paid", "Notes"])
    for i in range(ROWS):
        writer.writerow(
            [
                ("North", "South", "East")[i % 3],
                "990" if i == ROWS - 1 else str(3.5 + 2.5 * i),
                f"{1000 + 10 * i:,}",
                (date(2024, 1, 1) + timedelta(days=i)).isoformat(),
                "true" if i % 4 else "false",
                "",
            ]
        )
    return out.getvalue()


def csv_markdown(text: str) -> str:
    """What the docreader makes of a CSV: one table, the first row its header."""
    return markdown_table(list(csv.reader(io.StringIO(text))))


@pytest.fixture(scope="module")
def ctx(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerContext]:
    data_dir = tmp_path_factory.mktemp("data-table")
    settings = local_settings(
        database_url,
        data_dir,
        models=ModelSettings(embed_batch_size=4),
        # The embedding endpoints these tests start listen on 127.0.0.1.
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
    )
    with worker_context(settings, install=True) as context:
        yield context


def _knowledge_base(
    ctx: WorkerContext, model_key: str = MODEL_KEY, **config: Any
) -> tuple[str, str]:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    kb = ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={"chunking": CHUNKING, **config},
        embedding_model_key=model_key,
        storage_backend_id="",
    )
    return tenant, kb.id


def processed_knowledge(
    ctx: WorkerContext,
    markdown: str,
    file_name: str = "sales.csv",
    model_key: str = MODEL_KEY,
    **kb_config: Any,
) -> Knowledge:
    """A knowledge whose round 1 ran chunking for real and then completed."""
    tenant, kb_id = _knowledge_base(ctx, model_key, **kb_config)
    row = ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb_id,
        type="file",
        title=file_name,
        file_name=file_name,
        file_type=file_name.rsplit(".", 1)[-1],
        parse_status="processing",
        enable_status="disabled",
        attempt=1,
    )
    kb = ctx.knowledge_bases.get(None, kb_id)
    assert kb is not None
    tracker = SpanTracker(
        ctx.spans, ctx.publisher, tenant_id=tenant, knowledge_id=row.id, attempt=1
    )
    tracker.open({"file_name": file_name})
    products = RoundProducts(ctx.index_checkpoints, ctx.chunks, ctx.index, ctx.graph)
    chunking = ChunkingStage(ctx.knowledges, ctx.chunks, ctx.index_checkpoints, products)
    work = DocumentWork(row, 1, resolve(kb.config, None), model_key, markdown=markdown)
    run_stage(tracker, chunking, work)
    state = KnowledgeState(ctx, row.id, 1)
    state.enable()
    assert state.complete()
    done = ctx.knowledges.get(row.id, None)
    assert done is not None and done.parse_status == "completed"
    return done


def payload_of(row: Knowledge, attempt: int = 1) -> DataTableSummaryPayload:
    return DataTableSummaryPayload(row.tenant_id, row.id, row.knowledge_base_id, attempt)


def spans_of(ctx: WorkerContext, knowledge_id: str, attempt: int = 1) -> dict[str, Any]:
    return {span.name: span for span in ctx.spans.list(knowledge_id, attempt, tenant_id=None)}


def table_chunks(ctx: WorkerContext, knowledge_id: str) -> list[Any]:
    chunks, _ = ctx.chunks.list_by_knowledge(knowledge_id, limit=1000, tenant_id=None)
    return [c for c in chunks if c.chunk_type in TABLE_TYPES]


def test_a_csv_knowledge_gets_a_summary_and_a_chunk_per_column_searchable(
    ctx: WorkerContext,
) -> None:
    row = processed_knowledge(ctx, csv_markdown(sales_csv()))
    chunks = ctx.chunks.list_by_knowledge(row.id, 1000, tenant_id=None)[0]
    texts = [c for c in chunks if c.chunk_type == "text"]
    assert len(texts) > 3, "the table must have been cut into several chunks"
    assert enqueue_data_table_summary_if_needed(ctx, row, row.attempt)
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)

    chunks = table_chunks(ctx, row.id)
    summary, *columns = chunks
    assert summary.chunk_type == "table_summary"
    assert [c.chunk_type for c in columns] == ["table_column"] * 6
    assert all(c.attempt == 1 and c.parent_chunk_id == summary.id for c in columns)
    assert summary.content.startswith("Table 'sales.csv': 40 rows and 6 columns.")
    assert (
        "Columns: Region (text), Revenue (number), Units (integer), Date (date), "
        "Paid (boolean), Notes (empty)." in summary.content
    )
    by_name = {c.meta["column"]: c.content for c in columns}
    assert by_name["Revenue"].startswith(
        "Column 'Revenue' (number) in table 'sales.csv': 40 values, 0 empty, 40 distinct; "
        "min 3.5, max 990, mean 74.475, sum 2979."
    )
    assert "min 1000, max 1390, mean 1195, sum 47800" in by_name["Units"]
    assert "min 2024-01-01, max 2024-02-09" in by_name["Date"]
    assert "most frequent: 'North' (14), 'South' (13), 'East' (13)" in by_name["Region"]
    assert "most frequent: 'true' (30), 'false' (10)" in by_name["Paid"]
    assert by_name["Notes"] == (
        "Column 'Notes' (empty) in table 'sales.csv': all 40 cells are empty."
    )

    # Listed after the text chunks, with the ids chunk_id() gives them.
    assert summary.chunk_index == max(c.chunk_index for c in texts) + 1
    assert summary.id == chunk_id(row.id, 1, "table_summary", summary.chunk_index)

    assert sorted(ctx.index.ids_for_knowledge(MODEL_KEY, row.id)) == sorted(c.id for c in chunks)
    step = spans_of(ctx, row.id)[STEP]
    assert (step.kind, step.stage, step.status) == ("step", "postprocess", "done")
    assert step.parent_id == spans_of(ctx, row.id)["postprocess"].id
    assert step.output == {
        "tables": 1,
        "table_summary_chunks": 1,
        "table_column_chunks": 6,
        "chunks_indexed": 7,
    }
    assert step.input == {"file_name": "sales.csv", "file_type": "csv"}
    assert step.started_at is not None and step.ended_at is not None
    assert not step.error_code and not step.error_message
    scope = [row.knowledge_base_id]
    hits = ctx.index.search_keyword(
        MODEL_KEY, "Revenue", tenant_ids=[row.tenant_id], knowledge_base_ids=scope
    )
    assert by_name["Revenue"] in [hit.content for hit in hits]
    embedder = ctx.embedders.get(resolve({}, None).embedding)
    question = embedder.embed_query("What was the highest revenue?")
    dense = ctx.index.search_dense(
        MODEL_KEY, question, tenant_ids=[row.tenant_id], knowledge_base_ids=scope, top_k=3
    )
    assert by_name["Revenue"] in [hit.content for hit in dense]


def test_a_watcher_sees_the_step_run_and_finish(ctx: WorkerContext) -> None:
    row = processed_knowledge(ctx, csv_markdown(sales_csv()))
    bus = ctx.publisher
    assert isinstance(bus, InMemoryEventBus)

    async def watch() -> list[tuple[str, str, int]]:
        seen: list[tuple[str, str, int]] = []
        async with bus.subscribe(row.id) as events:
            run = asyncio.to_thread(summarize_data_tables, ctx, payload_of(row))
            task = asyncio.create_task(run)
            async for event in events:
                if event.kind == "span" and event.data["name"] == STEP:
                    seen.append((event.data["status"], event.data["stage"], event.attempt))
                    if event.data["status"] != "running":
                        break
            assert await task == 7
        return seen

    assert asyncio.run(asyncio.wait_for(watch(), timeout=120)) == [
        ("running", "postprocess", 1),
        ("done", "postprocess", 1),
    ]


def test_sheets_of_a_workbook_each_get_their_summary(ctx: WorkerContext) -> None:
    q1 = markdown_table([["Item", "Price"], ["pen", "1.5"], ["ink", "4"]])
    q2 = markdown_table([["Month", "Visitors"], ["Jan", "1,204"], ["Feb", "980"]])
    row = processed_knowledge(
        ctx,
        f"## Sheet: Q1\n\n{q1}\n\n## Sheet: Q2\n\n{q2}",
        file_name="book.xlsx",
    )
    assert summarize_data_tables(ctx, payload_of(row)) == 6
    chunks = table_chunks(ctx, row.id)
    summaries = [c for c in chunks if c.chunk_type == "table_summary"]
    assert [s.content.split("\n")[0] for s in summaries] == [
        "Sheet 'Q1' of 'book.xlsx': 2 rows and 2 columns.",
        "Sheet 'Q2' of 'book.xlsx': 2 rows and 2 columns.",
    ]
    visitors = next(c for c in chunks if c.meta.get("column") == "Visitors")
    assert visitors.parent_chunk_id == summaries[1].id
    assert "min 980, max 1204, mean 1092" in visitors.content


def test_a_retry_rewrites_the_same_rows_and_index_entries(ctx: WorkerContext) -> None:
    row = processed_knowledge(ctx, csv_markdown(sales_csv()))
    assert summarize_data_tables(ctx, payload_of(row)) == 7
    first = sorted(c.id for c in table_chunks(ctx, row.id))
    assert summarize_data_tables(ctx, payload_of(row)) == 7
    assert sorted(c.id for c in table_chunks(ctx, row.id)) == first
    assert sorted(ctx.index.ids_for_knowledge(MODEL_KEY, row.id)) == first


def test_a_stale_attempt_writes_nothing(ctx: WorkerContext) -> None:
    row = processed_knowledge(ctx, csv_markdown(sales_csv()))
    assert ctx.knowledges.begin_attempt(row.id, after_attempt=1) == 2
    assert summarize_data_tables(ctx, payload_of(row, attempt=1)) == 0
    assert table_chunks(ctx, row.id) == []
    assert ctx.index.ids_for_knowledge(MODEL_KEY, row.id) == []


def test_a_knowledge_being_deleted_gets_nothing(ctx: WorkerContext) -> None:
    row = processed_knowledge(ctx, csv_markdown(sales_csv()))
    assert [r.id for r in ctx.knowledges.mark_deleting([row.id])] == [row.id]
    assert summarize_data_tables(ctx, payload_of(row)) == 0
    assert table_chunks(ctx, row.id) == []


class ReparsingSummarizer:
    """Describes the table while a reparse opens round 2 — just before the write."""

    def __init__(self, ctx: WorkerContext, knowledge_id: str) -> None:
        self._ctx = ctx
        self._knowledge_id = knowledge_id

    def summarize(self, table: TableProfile, label: str) -> str:
        self._ctx.knowledges.begin_attempt(self._knowledge_id, after_attempt=1)
        return "described"


def test_a_round_taken_over_before_the_write_gets_nothing(ctx: WorkerContext) -> None:
    row = processed_knowledge(ctx, csv_markdown(sales_csv()))
    written = summarize_data_tables(
        ctx, payload_of(row), summarizer=ReparsingSummarizer(ctx, row.id)
    )
    assert written == 0
    assert table_chunks(ctx, row.id) == []
    assert ctx.index.ids_for_knowledge(MODEL_KEY, row.id) == []
    step = spans_of(ctx, row.id)[STEP]
    assert (step.status, step.error_code) == ("cancelled", "SUPERSEDED")
    assert step.error_message == "attempt 2 took over"


def test_without_indexing_the_chunks_are_stored_but_not_indexed(ctx: WorkerContext) -> None:
    row = processed_knowledge(
        ctx, csv_markdown(sales_csv()), indexing={"vector_enabled": False, "keyword_enabled": False}
    )
    assert summarize_data_tables(ctx, payload_of(row)) == 7
    assert len(table_chunks(ctx, row.id)) == 7
    assert ctx.index.ids_for_knowledge(MODEL_KEY, row.id) == []


def test_ending_the_round_removes_the_table_chunks_with_the_text(ctx: WorkerContext) -> None:
    row = processed_knowledge(ctx, csv_markdown(sales_csv()))
    assert summarize_data_tables(ctx, payload_of(row)) == 7
    remove_round_products(ctx, row.id, 1, MODEL_KEY, and_older=True)
    assert ctx.chunks.count_by_knowledge(row.id) == 0
    assert ctx.index.ids_for_knowledge(MODEL_KEY, row.id) == []


def test_only_tabular_files_get_the_task(ctx: WorkerContext) -> None:
    tenant, kb_id = _knowledge_base(ctx)
    for name, expected in (("report.pdf", False), ("notes.md", False), ("BOOK.XLS", True)):
        row = ctx.knowledges.create(
            tenant_id=tenant,
            knowledge_base_id=kb_id,
            type="file",
            title=name,
            file_name=name,
            file_type=name.rsplit(".", 1)[-1],
            parse_status="completed",
            enable_status="enabled",
            attempt=3,
        )
        assert enqueue_data_table_summary_if_needed(ctx, row, 3) is expected
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=60)


# What an OpenAI-compatible endpoint answers every request for an unknown model with.
UNKNOWN_MODEL = Reply(400, json.dumps({"error": {"message": "model 'gone' does not exist"}}))


def test_an_embedding_failure_fails_the_step_span_and_leaves_no_chunks(
    ctx: WorkerContext,
) -> None:
    with EmbeddingServer(lambda n: UNKNOWN_MODEL) as endpoint:
        embedding = {
            "provider": "openai",
            "model": "gone",
            "dimensions": 8,
            "base_url": endpoint.base_url,
        }
        row = processed_knowledge(
            ctx, csv_markdown(sales_csv()), model_key="openai/gone/8", embedding=embedding
        )
        with pytest.raises(EmbeddingError):
            summarize_data_tables(ctx, payload_of(row))
    step = spans_of(ctx, row.id)[STEP]
    assert (step.status, step.error_code) == ("failed", "DATA_TABLE_FAILED")
    assert "HTTP 400 Bad Request" in step.error_message
    assert "does not exist" not in step.error_message, "the answer's bytes stay in the log"
    assert step.ended_at is not None and step.output == {}
    assert table_chunks(ctx, row.id) == []
