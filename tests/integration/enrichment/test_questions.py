"""knowledge:question through real parts: a migrated PostgreSQL (and SQLite), milvus-lite,
the lite queue with its real retries, a real OpenAI-compatible embedding server and a real
chat-completions server. A round's text chunks are planned in batches of 20 (chunks of
only images skipped), each batch asks the question model about its chunks concurrently,
writes every question as a ``question`` chunk under its source chunk, indexes it, and ends
once: the knowledge leaves finalizing when the last batch ends, whatever happened to the
model, and never counts a batch twice."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import delete, update

from core.effective_config import resolve
from core.payloads import QuestionBatchPayload
from core.statuses import ChunkType, ParseStatus
from storage.db.models import Knowledge, SubtaskEnd
from storage.db.repositories.chunks import NewChunk
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.worker_context import local_settings, worker_context
from workers import task_specs
from workers.context import WorkerContext, install_context
from workers.enrichment.questions import end_batch_failed, generate_questions
from workers.lifecycle.deletion import delete_marked, mark_deleting
from workers.lifecycle.enqueue import document_process_payload
from workers.lifecycle.reparse import restart_processing
from workers.pipeline.stages.question_subtask import QuestionSubtask
from workers.pipeline.stages.work import DocumentWork
from workers.settings_groups import ModelSettings, OutboundSettings

CONCURRENCY = 3
_SECTION = re.compile(r"Section (\d+):")


@pytest.fixture(scope="module")
def ctx(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerContext]:
    data_dir = tmp_path_factory.mktemp("questions")
    settings = local_settings(
        database_url,
        data_dir,
        models=ModelSettings(
            embed_batch_size=16, model_max_retries=1, model_concurrency=CONCURRENCY
        ),
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
    )
    with worker_context(settings, install=True) as context:
        yield context


@pytest.fixture(autouse=True)
def installed(ctx: WorkerContext) -> None:
    # The queue's handlers run on the current context: this module's backend's.
    install_context(ctx)


@pytest.fixture(scope="module")
def embeddings() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as server:
        yield server


def section_of(request: ChatRequest) -> int:
    found = _SECTION.search(request.texts[-1])
    assert found is not None, request.texts[-1]
    return int(found[1])


def questions_about(request: ChatRequest) -> str:
    """Two questions about the section asked of, in words the section does not use."""
    n = section_of(request)
    return json.dumps(
        {
            "questions": [
                f"How many crates did the quayside machinery move in section {n}?",
                f"Which dockside lifting device is described in part {n}?",
            ]
        }
    )


def model_config(server: ChatServer) -> dict[str, Any]:
    return {"provider": "openai", "model": "questioner", "base_url": server.base_url}


def new_kb(ctx: WorkerContext, embeddings: EmbeddingServer, questions: dict[str, Any]) -> Any:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    return ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={
            "embedding": embeddings.kb_config(),
            "chunking": {"chunk_size": 120, "chunk_overlap": 0},
            "question_generation": questions,
        },
        embedding_model_key=embeddings.model_key,
        storage_backend_id="",
    )


def processed(
    ctx: WorkerContext,
    embeddings: EmbeddingServer,
    questions: dict[str, Any],
    sections: int = 3,
    title: str = "Harbour log",
) -> Knowledge:
    """A round of ``sections`` text chunks under the question config ``questions``, run to
    its end (its post-processing plans the batches, their tasks write the questions)."""
    kb = new_kb(ctx, embeddings, questions)
    text = "\n\n".join(
        f"Section {i}: the Varnholt harbour crane lifted {i + 3} crates of salt."
        for i in range(sections)
    )
    row = ctx.knowledges.create(
        tenant_id=kb.tenant_id,
        knowledge_base_id=kb.id,
        type="manual",
        title=title,
        content=text,
        parse_status="pending",
        enable_status="disabled",
        attempt=1,
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, document_process_payload(row, 1)))
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=180)
    done = ctx.knowledges.get(row.id, None)
    assert done is not None
    assert ctx.chunks.count_of_types(done.id, 1, [ChunkType.TEXT]) == sections
    return done


def spans_of(ctx: WorkerContext, knowledge_id: str) -> dict[str, Any]:
    return {s.name: s for s in ctx.spans.list(knowledge_id, 1, tenant_id=None)}


def question_rows(ctx: WorkerContext, knowledge_id: str) -> list[Any]:
    return ctx.chunks.list_of_types(knowledge_id, 1, [ChunkType.QUESTION])


def finalizing(ctx: WorkerContext, knowledge_id: str, pending: int) -> None:
    with ctx.db.session() as session:
        session.execute(
            update(Knowledge)
            .where(Knowledge.id == knowledge_id)
            .values(parse_status=ParseStatus.FINALIZING, pending_subtasks_count=pending)
        )


def turn_on_questions(ctx: WorkerContext, knowledge: Knowledge, chat: ChatServer) -> None:
    kb = ctx.knowledge_bases.get(None, knowledge.knowledge_base_id)
    assert kb is not None
    questions = {"enabled": True, "model": model_config(chat)}
    ctx.knowledge_bases.update(None, kb.id, config={**kb.config, "question_generation": questions})


def batch_of(knowledge: Knowledge, ctx: WorkerContext, index: int = 1) -> QuestionBatchPayload:
    texts = ctx.chunks.list_of_types(knowledge.id, 1, [ChunkType.TEXT])
    return QuestionBatchPayload(
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        knowledge_base_id=knowledge.knowledge_base_id,
        attempt=1,
        batch_index=index,
        chunk_ids=[c.id for c in texts],
    )


def test_questions_are_indexed_under_their_chunks_and_end_the_round(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=questions_about, delay_s=0.1) as chat:
        config = {"enabled": True, "question_count": 2, "model": model_config(chat)}
        done = processed(ctx, embeddings, config, sections=23)

        assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
        asked = chat.log()
        assert len(asked) == 23, "one call per text chunk"
        assert "2 different questions" in asked[0].texts[0]
        assert asked[0].schema is not None and "questions" in asked[0].schema["properties"]
        assert 1 < chat.max_in_flight <= CONCURRENCY, "a batch's calls run together"

    texts = {c.id: c for c in ctx.chunks.list_of_types(done.id, 1, [ChunkType.TEXT])}
    rows = question_rows(ctx, done.id)
    assert len(rows) == 46
    for row in rows:
        source = texts[row.parent_chunk_id]
        n = _SECTION.search(source.content)
        assert n is not None and f" {n[1]}?" in row.content
    indexed = ctx.index.ids_for_knowledge(embeddings.model_key, done.id)
    assert {r.id for r in rows} <= set(indexed)
    hits = ctx.index.search_keyword(
        embeddings.model_key,
        "quayside machinery section 7",
        tenant_ids=[done.tenant_id],
        knowledge_base_ids=[done.knowledge_base_id],
        top_k=3,
    )
    top = next(r for r in rows if r.id == hits[0].chunk_id)
    assert top.parent_chunk_id is not None and "Section 7:" in texts[top.parent_chunk_id].content

    spans = spans_of(ctx, done.id)
    assert (spans["postprocess"].output or {})["expected_subtasks"] == 2
    for batch, chunks in ((1, 20), (2, 3)):
        step = spans[f"postprocess.question.{batch}"]
        assert (step.status, step.kind, step.parent_id) == ("done", "step", spans["postprocess"].id)
        assert (step.output or {}) == {"chunks": chunks, "questions": 2 * chunks}
        assert step.input["question_count"] == 2
    assert spans["knowledge_processing"].status == "done"


def test_the_planner_batches_text_chunks_and_skips_image_only_ones(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    model = {"provider": "openai", "model": "q", "base_url": "http://127.0.0.1:9/v1"}
    kb = new_kb(ctx, embeddings, {"enabled": True, "model": model})
    row = ctx.knowledges.create(
        tenant_id=kb.tenant_id,
        knowledge_base_id=kb.id,
        type="manual",
        title="t",
        content="",
        parse_status="processing",
        attempt=1,
    )
    contents = [f"Paragraph {i} of the log." for i in range(45)]
    contents[10:10] = ["![scan page 3](resource://r/abc.png)", '<img src="x.png"> <!-- -->']
    chunks = [
        NewChunk(
            tenant_id=kb.tenant_id,
            knowledge_base_id=kb.id,
            knowledge_id=row.id,
            attempt=1,
            chunk_index=i,
            content=content,
        )
        for i, content in enumerate(contents)
    ]
    ctx.chunks.insert_many(chunks)

    def planned(config: dict[str, Any]) -> list[list[str]]:
        kind = QuestionSubtask(ctx.queue, ctx.chunks)
        work = DocumentWork(row, 1, resolve({**kb.config, **config}, None), kb.embedding_model_key)
        count = kind.planned(work)
        assert count == len(kind.batches(work))
        return kind.batches(work)

    batches = planned({})
    assert [len(b) for b in batches] == [20, 20, 5]
    image_only = {chunks[10].id, chunks[11].id}
    assert image_only.isdisjoint({i for b in batches for i in b})
    assert batches[0][:10] == [c.id for c in chunks[:10]] and batches[0][10] == chunks[12].id
    assert planned({"question_generation": {"enabled": False, "model": model}}) == []
    assert planned({"question_generation": {"enabled": True}}) == [[]], "one NO_QUESTION_MODEL"
    no_index = {"indexing": {"vector_enabled": False, "keyword_enabled": False}}
    assert planned(no_index) == []


def test_no_question_model_fails_its_batch_and_says_why(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    done = processed(ctx, embeddings, {"enabled": True})
    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    step = spans_of(ctx, done.id)["postprocess.question.1"]
    assert (step.status, step.error_code) == ("failed", "NO_QUESTION_MODEL")
    assert question_rows(ctx, done.id) == []


def test_a_refused_model_ends_the_batch_without_asking_the_rest(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(fail=lambda n: 401, delay_s=0.05) as chat:
        done = processed(ctx, embeddings, {"enabled": True, "model": model_config(chat)}, 12)
        assert len(chat.log()) < 12, "bad credentials are not tried for every chunk"

    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    step = spans_of(ctx, done.id)["postprocess.question.1"]
    assert (step.status, step.error_code) == ("failed", "MODEL_UNAUTHORIZED")
    assert spans_of(ctx, done.id)["knowledge_processing"].status == "done"
    assert question_rows(ctx, done.id) == []


def test_a_chunk_the_model_rejects_is_skipped_and_named(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    def reject_section_1(request: ChatRequest) -> int | None:
        return 400 if section_of(request) == 1 else None

    def none_for_section_2(request: ChatRequest) -> str:
        return '{"questions": []}' if section_of(request) == 2 else questions_about(request)

    with ChatServer(answer=none_for_section_2, fail_request=reject_section_1) as chat:
        done = processed(ctx, embeddings, {"enabled": True, "model": model_config(chat)}, 4)

    assert done.parse_status == ParseStatus.COMPLETED
    texts = {c.chunk_index: c for c in ctx.chunks.list_of_types(done.id, 1, [ChunkType.TEXT])}
    parents = {r.parent_chunk_id for r in question_rows(ctx, done.id)}
    assert parents == {texts[0].id, texts[3].id}
    step = spans_of(ctx, done.id)["postprocess.question.1"]
    assert step.status == "done"
    skipped = {s["chunk_id"]: s["error"] for s in (step.output or {})["skipped"]}
    assert skipped.keys() == {texts[1].id, texts[2].id}
    assert skipped[texts[1].id].startswith("MODEL_REQUEST_REJECTED")
    assert skipped[texts[2].id] == "the model answered no questions"


def test_an_unavailable_model_is_tried_again_by_the_queue(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    # The client tries each call twice (model_max_retries=1): the queue's first try fails.
    with ChatServer(answer=questions_about, fail=lambda n: 503 if n <= 2 else None) as chat:
        done = processed(ctx, embeddings, {"enabled": True, "model": model_config(chat)}, 1)
        assert len(chat.log()) == 3

    assert done.parse_status == ParseStatus.COMPLETED
    assert len(question_rows(ctx, done.id)) == 2
    step = spans_of(ctx, done.id)["postprocess.question.1"]
    assert (step.status, step.input["queue_try"]) == ("done", 2)


def test_the_last_try_ends_the_batch_with_the_chunks_it_could_do(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=questions_about) as chat:
        done = processed(ctx, embeddings, {"enabled": False, "model": model_config(chat)}, 3)
        finalizing(ctx, done.id, 1)

        def unreadable_for_section_0(request: ChatRequest) -> str:
            return "not json" if section_of(request) == 0 else questions_about(request)

        chat.answer = unreadable_for_section_0
        turn_on_questions(ctx, done, chat)
        # Called outside a queue: its one try is the last.
        assert generate_questions(ctx, batch_of(done, ctx)) is True

    row = ctx.knowledges.get(done.id, None)
    assert row is not None and (row.parse_status, row.pending_subtasks_count) == (
        ParseStatus.COMPLETED,
        0,
    )
    assert len(question_rows(ctx, done.id)) == 4
    [skipped] = (spans_of(ctx, done.id)["postprocess.question.1"].output or {})["skipped"]
    assert skipped["error"].startswith("MODEL_UNAVAILABLE")


def test_a_batch_ends_exactly_once(ctx: WorkerContext, embeddings: EmbeddingServer) -> None:
    with ChatServer(answer=questions_about) as chat:
        done = processed(ctx, embeddings, {"enabled": False, "model": model_config(chat)}, 2)
        turn_on_questions(ctx, done, chat)
        # Round 1 finalizing with this batch and one more subtask to go.
        finalizing(ctx, done.id, 2)
        payload = batch_of(done, ctx)
        assert generate_questions(ctx, payload) is True
        written = {r.id for r in question_rows(ctx, done.id)}
        # Tried again (a crash after its end), then its dead letter: neither counts again.
        ctx.queue.enqueue(
            replace(task_specs.question_batch(payload), job_id=f"again-{uuid.uuid4().hex}")
        )
        assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=60)
        end_batch_failed(ctx, done, payload, "QUESTIONS_FAILED", "the last try crashed")
        assert len(chat.log()) == 2, "the ended batch asked nothing again"

    row = ctx.knowledges.get(done.id, None)
    assert row is not None
    assert (row.parse_status, row.pending_subtasks_count) == (ParseStatus.FINALIZING, 1)
    assert {r.id for r in question_rows(ctx, done.id)} == written and len(written) == 4
    assert spans_of(ctx, done.id)["postprocess.question.1"].status == "done"
    again = ctx.subtask_ends.end_once(done.id, 1, "question", 1)
    assert again is not None and not again.counted
    last = ctx.subtask_ends.end_once(done.id, 1, "question", 2)
    assert last is not None and last.counted and last.completed_round
    assert ctx.subtask_ends.end_once(done.id, 2, "question", 1) is None, "not the round"


def test_a_dead_letter_removes_what_the_batch_wrote(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=questions_about) as chat:
        done = processed(ctx, embeddings, {"enabled": True, "model": model_config(chat)}, 2)
    rows = question_rows(ctx, done.id)
    # As if the batch's last try had crashed after writing, before its end.
    finalizing(ctx, done.id, 1)
    with ctx.db.session() as session:
        session.execute(delete(SubtaskEnd).where(SubtaskEnd.knowledge_id == done.id))
    end_batch_failed(ctx, done, batch_of(done, ctx), "QUESTIONS_FAILED", "crashed: boom")

    assert question_rows(ctx, done.id) == []
    indexed = set(ctx.index.ids_for_knowledge(embeddings.model_key, done.id))
    assert indexed.isdisjoint(r.id for r in rows)
    row = ctx.knowledges.get(done.id, None)
    assert row is not None and row.parse_status == ParseStatus.COMPLETED
    step = spans_of(ctx, done.id)["postprocess.question.1"]
    assert (step.status, step.error_message) == ("failed", "crashed: boom")


def test_a_round_reparsed_meanwhile_gets_nothing(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    title = f"log {uuid.uuid4().hex}"

    def reparse_then_answer(request: ChatRequest) -> str:
        # A newer round starts while the model writes the old round's questions.
        with ctx.db.session() as session:
            session.execute(update(Knowledge).where(Knowledge.title == title).values(attempt=2))
        return questions_about(request)

    with ChatServer(answer=reparse_then_answer) as chat:
        done = processed(
            ctx, embeddings, {"enabled": True, "model": model_config(chat)}, 2, title=title
        )

    assert done.attempt == 2 and done.parse_status == ParseStatus.FINALIZING
    assert question_rows(ctx, done.id) == []
    indexed = ctx.index.ids_for_knowledge(embeddings.model_key, done.id)
    texts = {c.id for c in ctx.chunks.list_of_types(done.id, 1, [ChunkType.TEXT])}
    assert set(indexed) == texts, "no question of the old round is searchable"
    step = spans_of(ctx, done.id)["postprocess.question.1"]
    assert (step.status, step.error_code) == ("failed", "SUPERSEDED")


def test_reparse_and_delete_remove_the_questions_and_their_index_rows(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=questions_about) as chat:
        done = processed(ctx, embeddings, {"enabled": True, "model": model_config(chat)}, 2)
        old = {r.id for r in question_rows(ctx, done.id)}
        assert len(old) == 4 and old <= set(
            ctx.index.ids_for_knowledge(embeddings.model_key, done.id)
        )

        # The new round is told not to ask: what the old one wrote must not outlive it.
        restarted = restart_processing(
            ctx, done, overrides={"question_generation": {"enabled": False}}
        )
        assert restarted.row is not None
        assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)

    again = ctx.knowledges.get(done.id, None)
    assert again is not None and (again.attempt, again.parse_status) == (2, ParseStatus.COMPLETED)
    chunks, _ = ctx.chunks.list_by_knowledge(done.id, 100, tenant_id=None)
    assert [c for c in chunks if c.chunk_type == ChunkType.QUESTION] == []
    indexed = set(ctx.index.ids_for_knowledge(embeddings.model_key, done.id))
    assert indexed and indexed.isdisjoint(old)

    delete_marked(ctx, mark_deleting(ctx, [done.id]))
    assert ctx.index.ids_for_knowledge(embeddings.model_key, done.id) == []
    assert ctx.chunks.count_by_knowledge(done.id) == 0
