"""knowledge:summary through real parts: a migrated PostgreSQL (and SQLite), milvus-lite, the
lite queue with its real retries, a real OpenAI-compatible embedding server and a real
chat-completions server. The round's summary is written by the knowledge base's summary
model, stored on the knowledge, indexed as a summary chunk, and its end is the round's last
post-processing subtask: the knowledge leaves finalizing with it, whether it completed or
failed, exactly once."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from sqlalchemy import update

from core.payloads import SummaryPayload
from core.statuses import ChunkType, ParseStatus, SummaryStatus
from storage.db.models import Knowledge
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from workers import task_specs
from workers.context import WorkerContext
from workers.lifecycle.enqueue import document_process_payload

FACT = "The Varnholt lighthouse keeper logs 412 passing ships a year."
SUMMARY = "A report on the Varnholt lighthouse: its keeper logs 412 ships a year."


def processed(
    ctx: WorkerContext,
    embeddings: EmbeddingServer,
    summary: dict[str, Any],
    title: str = "Varnholt report",
) -> Knowledge:
    """A round of a knowledge base with the summary ``summary`` config, run to its end:
    its post-processing plans the summary, the summary task writes it."""
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    kb = ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={"embedding": embeddings.kb_config(), "summary": summary},
        embedding_model_key=embeddings.model_key,
        storage_backend_id="",
    )
    text = "\n\n".join([f"Section {i}: the harbour records of the year." for i in range(5)])
    row = ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="manual",
        title=title,
        content=f"{text}\n\n{FACT}",
        parse_status="pending",
        enable_status="disabled",
        attempt=1,
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, document_process_payload(row, 1)))
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)
    done = ctx.knowledges.get(row.id, None)
    assert done is not None
    return done


def summarize_again(ctx: WorkerContext, knowledge: Knowledge) -> Knowledge:
    payload = SummaryPayload(
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        knowledge_base_id=knowledge.knowledge_base_id,
        attempt=knowledge.attempt,
    )
    ctx.queue.enqueue(replace(task_specs.summary(payload), job_id=f"again-{uuid.uuid4().hex}"))
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)
    done = ctx.knowledges.get(knowledge.id, None)
    assert done is not None
    return done


def model_config(server: ChatServer) -> dict[str, Any]:
    return {"provider": "openai", "model": "summariser", "base_url": server.base_url}


def spans_of(ctx: WorkerContext, knowledge_id: str) -> dict[str, Any]:
    return {s.name: s for s in ctx.spans.list(knowledge_id, 1, tenant_id=None)}


def test_the_summary_is_stored_indexed_and_ends_the_round(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=lambda request: f"  {SUMMARY}\n") as chat:
        done = processed(
            ctx, embeddings, {"enabled": True, "model": model_config(chat), "max_length": 300}
        )

        assert (done.summary_status, done.summary) == (SummaryStatus.COMPLETED, SUMMARY)
        assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
        assert done.processed_at is not None
        [asked] = chat.log()
        assert "at most 300 characters" in asked.texts[0]
        assert FACT in asked.texts[-1] and "Varnholt report" in asked.texts[-1]
        [chunk] = ctx.chunks.list_of_types(done.id, 1, [ChunkType.SUMMARY])
        assert chunk.content == SUMMARY
        assert chunk.id in ctx.index.ids_for_knowledge(embeddings.model_key, done.id)
        hits = ctx.index.search_keyword(
            embeddings.model_key,
            "lighthouse keeper",
            tenant_ids=[done.tenant_id],
            knowledge_base_ids=[done.knowledge_base_id],
            top_k=10,
        )
        assert chunk.id in [h.chunk_id for h in hits]
        spans = spans_of(ctx, done.id)
        step = spans["postprocess.summary"]
        assert (step.status, step.kind, step.stage) == ("done", "step", "postprocess")
        assert step.parent_id == spans["postprocess"].id
        assert (step.output or {})["summary_chars"] == len(SUMMARY)
        assert (spans["postprocess"].output or {})["expected_subtasks"] == 1
        assert spans["postprocess"].status == spans["knowledge_processing"].status == "done"


def test_a_refused_model_fails_the_summary_at_once_and_still_ends_the_round(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(fail=lambda n: 401) as chat:
        done = processed(ctx, embeddings, {"enabled": True, "model": model_config(chat)})

        assert len(chat.log()) == 1, "bad credentials are not tried again"
        assert done.summary_status == SummaryStatus.FAILED and not done.summary
        assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
        spans = spans_of(ctx, done.id)
        assert spans["postprocess.summary"].status == "failed"
        assert "401" in (spans["postprocess.summary"].error_message or "")
        assert spans["knowledge_processing"].status == "done", "the document is fine"
        assert ctx.chunks.list_of_types(done.id, 1, [ChunkType.SUMMARY]) == []


def test_an_unavailable_model_is_tried_again_by_the_queue(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    # The client tries each call twice (model_max_retries=1): the queue's first try fails.
    with ChatServer(answer=lambda r: SUMMARY, fail=lambda n: 503 if n <= 2 else None) as chat:
        done = processed(ctx, embeddings, {"enabled": True, "model": model_config(chat)})

        assert len(chat.log()) == 3
        assert (done.summary_status, done.parse_status) == (
            SummaryStatus.COMPLETED,
            ParseStatus.COMPLETED,
        )
        assert spans_of(ctx, done.id)["postprocess.summary"].input["queue_try"] == 2


def test_an_ended_summary_is_not_written_or_counted_again(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=lambda r: SUMMARY) as chat:
        done = processed(ctx, embeddings, {"enabled": True, "model": model_config(chat)})
        again = summarize_again(ctx, done)

        assert len(chat.log()) == 1, "the ended summary was not written again"
        assert (again.summary, again.parse_status, again.pending_subtasks_count) == (
            SUMMARY,
            ParseStatus.COMPLETED,
            0,
        )


def test_ending_a_summary_takes_exactly_one_subtask_off(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=lambda r: SUMMARY) as chat:
        done = processed(ctx, embeddings, {"enabled": False, "model": model_config(chat)})
    # Round 1 finalizing with two subtasks to go, its summary being written.
    with ctx.db.session() as session:
        session.execute(
            update(Knowledge)
            .where(Knowledge.id == done.id)
            .values(
                parse_status=ParseStatus.FINALIZING,
                pending_subtasks_count=2,
                summary_status=SummaryStatus.PROCESSING,
            )
        )
    first = ctx.summaries.complete(done.id, 1, SUMMARY)
    assert first is not None and not first.completed_round
    assert ctx.summaries.complete(done.id, 1, "a second try") is None
    assert ctx.summaries.fail(done.id, 1, "late") is None
    row = ctx.knowledges.get(done.id, None)
    assert row is not None
    assert (row.parse_status, row.pending_subtasks_count, row.summary) == (
        ParseStatus.FINALIZING,
        1,
        SUMMARY,
    )


def test_no_summary_model_fails_the_summary_and_says_why(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    done = processed(ctx, embeddings, {"enabled": True})
    assert (done.summary_status, done.parse_status) == (
        SummaryStatus.FAILED,
        ParseStatus.COMPLETED,
    )
    assert spans_of(ctx, done.id)["postprocess.summary"].error_code == "NO_SUMMARY_MODEL"


def test_a_summary_turned_off_is_not_planned(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer() as chat:
        done = processed(ctx, embeddings, {"enabled": False, "model": model_config(chat)})
        assert chat.log() == []
    assert (done.summary_status, done.parse_status) == (SummaryStatus.NONE, ParseStatus.COMPLETED)
    assert spans_of(ctx, done.id)["postprocess"].status == "skipped"


def test_a_round_reparsed_meanwhile_gets_nothing(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    title = f"report {uuid.uuid4().hex}"

    def reparse_then_answer(request: ChatRequest) -> str:
        # A newer round starts while the model writes the old round's summary.
        with ctx.db.session() as session:
            session.execute(update(Knowledge).where(Knowledge.title == title).values(attempt=2))
        return SUMMARY

    with ChatServer(answer=reparse_then_answer) as chat:
        done = processed(ctx, embeddings, {"enabled": True, "model": model_config(chat)}, title)

    assert done.attempt == 2 and done.summary != SUMMARY
    assert done.summary_status == SummaryStatus.PROCESSING, "the newer round's to decide"
    assert ctx.chunks.list_of_types(done.id, 1, [ChunkType.SUMMARY]) == []
    assert spans_of(ctx, done.id)["postprocess.summary"].status == "failed"
