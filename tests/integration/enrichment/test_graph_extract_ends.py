"""knowledge:graph_extract's ends through real parts (PostgreSQL and SQLite, milvus-lite,
the lite queue with its retries, real embedding and chat-completions servers): a malformed
answer asked again and then counted done with the error, a refused or missing model failing
the subtask at once, an unavailable one tried again by the queue, every subtask ending
exactly once (a dead letter too), a stale task of an older round writing and counting
nothing, a reparse removing the old round's rows, and the plan's count of graph chunks."""

import json
import uuid

import pytest
from sqlalchemy import delete, update

from core.statuses import ParseStatus
from storage.db.models import Knowledge, SubtaskEnd
from storage.graph.store import ChunkExtraction, ExtractedEntity
from storage.queue.lite import LiteTaskQueue
from tests.integration.enrichment.graph_support import (
    DOC_A,
    DOC_B,
    entity,
    extract_config,
    finalizing,
    graph_of,
    model_config,
    new_kb,
    passage_of,
    payload_of,
    processed,
    spans_of,
    texts_of,
)
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from workers.context import WorkerContext, install_context
from workers.enrichment.graph_extract import MALFORMED_ASKS, end_failed, extract_graph
from workers.lifecycle.reparse import restart_processing


@pytest.fixture(autouse=True)
def installed(ctx: WorkerContext) -> None:
    # The queue's handlers run on the current context: this module's backend's.
    install_context(ctx)


def test_a_malformed_answer_is_asked_again_then_the_chunk_counts_as_done(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    def malformed_first(request: ChatRequest) -> str:
        # The first chunk's answers are never usable; the second's first one is not JSON.
        if "Ada Lovelace" in passage_of(request):
            return '{"entities": [{"name": "Ada Lovelace"}]}'
        if sum("lies in Brekka" in passage_of(r) for r in chat.log()) == 1:
            return "Sure! Here is the graph you asked for."
        return graph_of(request)

    with ChatServer(answer=malformed_first) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat))
        done = processed(ctx, kb, DOC_A)
        asked = [passage_of(r) for r in chat.log()]

    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    assert sum("Ada Lovelace" in p for p in asked) == MALFORMED_ASKS
    assert sum("lies in Brekka" in p for p in asked) == 2
    spans = spans_of(ctx, done.id)
    gave_up = spans["postprocess.graph.1"]
    assert gave_up.status == "done"
    output = gave_up.output or {}
    assert (output["entities"], output["relations"], output["asks"]) == (0, 0, MALFORMED_ASKS)
    assert output["error"].startswith("GRAPH_ANSWER_MALFORMED: the answer does not match")
    second = spans["postprocess.graph.2"].output or {}
    assert (second["entities"], second["asks"]) == (2, 2)
    assert "not the JSON asked for" in second["malformed_answers"][0]
    assert ctx.graph.find_entities([kb.id], name="Ada", limit=10) == []
    assert entity(ctx, kb, "Brekka").chunk_count == 1


def test_a_refused_model_fails_the_subtask_at_once(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(fail=lambda n: 401) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat))
        done = processed(ctx, kb, DOC_A)
        assert len(chat.log()) == 2, "one call per chunk: a refusal is not tried again"

    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    spans = spans_of(ctx, done.id)
    for index in (1, 2):
        step = spans[f"postprocess.graph.{index}"]
        assert (step.status, step.error_code) == ("failed", "MODEL_UNAUTHORIZED")
    assert spans["knowledge_processing"].status == "done"
    assert ctx.graph.entity_counts(kb.id) == {"entities": 0, "relations": 0}


def test_no_extraction_model_fails_its_one_task_and_says_why(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = new_kb(ctx, embeddings, extract_config(None))
    done = processed(ctx, kb, DOC_A)

    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    spans = spans_of(ctx, done.id)
    assert spans["postprocess"].input["graph_subtasks"] == 1
    step = spans["postprocess.graph.1"]
    assert (step.status, step.error_code) == ("failed", "NO_EXTRACT_MODEL")


def test_an_unavailable_model_is_tried_again_by_the_queue(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    # The client tries each call twice (model_max_retries=1): the queue's first try fails.
    with ChatServer(answer=graph_of, fail=lambda n: 503 if n <= 2 else None) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat))
        done = processed(ctx, kb, DOC_B)
        assert len(chat.log()) == 3

    assert done.parse_status == ParseStatus.COMPLETED
    step = spans_of(ctx, done.id)["postprocess.graph.1"]
    assert (step.status, step.input["queue_try"]) == ("done", 2)
    assert entity(ctx, kb, "Osk Trading").chunk_count == 1


def test_a_subtask_ends_exactly_once(ctx: WorkerContext, embeddings: EmbeddingServer) -> None:
    with ChatServer(answer=graph_of) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat), graph=False)
        done = processed(ctx, kb, DOC_A)
        ctx.knowledge_bases.update(
            None,
            kb.id,
            config={**kb.config, "indexing": {"vector_enabled": True, "graph_enabled": True}},
        )
        a1, _ = texts_of(ctx, done)
        # Round 1 finalizing with this chunk's task and one more subtask to go.
        finalizing(ctx, done.id, 2)
        assert extract_graph(ctx, payload_of(done, a1.id, 1)) is True
        assert extract_graph(ctx, payload_of(done, a1.id, 1)) is False, "ended: dropped"
        assert len(chat.log()) == 1

    row = ctx.knowledges.get(done.id, None)
    assert row is not None and (row.parse_status, row.pending_subtasks_count) == (
        ParseStatus.FINALIZING,
        1,
    )
    assert entity(ctx, kb, "Ada Lovelace").chunk_count == 1


def test_a_stale_task_of_an_older_round_writes_nothing_and_counts_nothing(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    title = f"log {uuid.uuid4().hex}"

    def reparse_then_answer(request: ChatRequest) -> str:
        # A newer round begins while the model reads the old round's chunk.
        with ctx.db.session() as session:
            session.execute(
                update(Knowledge)
                .where(Knowledge.title == title)
                .values(attempt=2, pending_subtasks_count=5)
            )
        return graph_of(request)

    with ChatServer(answer=reparse_then_answer) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat))
        done = processed(ctx, kb, DOC_B, title=title)

    assert (done.attempt, done.parse_status) == (2, ParseStatus.FINALIZING)
    assert done.pending_subtasks_count == 5, "the new round is not counted down"
    assert ctx.graph.entity_counts(kb.id) == {"entities": 0, "relations": 0}
    step = spans_of(ctx, done.id)["postprocess.graph.1"]
    assert (step.status, step.error_code) == ("failed", "SUPERSEDED")
    # The store's own guard: no row of round 1 once round 2 began.
    [b1] = texts_of(ctx, done)
    late = ChunkExtraction(b1.id, [ExtractedEntity("Osk Trading", "organization")])
    assert not ctx.graph.write_chunk(done.tenant_id, kb.id, done.id, 1, late)
    assert ctx.graph.entity_counts(kb.id) == {"entities": 0, "relations": 0}


def test_reparse_removes_the_old_rounds_graph_rows(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=graph_of) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat))
        first = processed(ctx, kb, DOC_A)
        second = processed(ctx, kb, DOC_B, title="Trade log")
        assert entity(ctx, kb, "Varnholt Harbour").knowledge_count == 2

        # The new round is told not to extract: what the old one wrote must not outlive it.
        restarted = restart_processing(ctx, first, overrides={"graph_enabled": False})
        assert restarted.row is not None
        assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)

    again = ctx.knowledges.get(first.id, None)
    assert again is not None and (again.attempt, again.parse_status) == (2, ParseStatus.COMPLETED)
    harbour = entity(ctx, kb, "Varnholt Harbour")
    assert (harbour.knowledge_count, harbour.chunk_count) == (1, 1), "the other's stays"
    assert ctx.graph.find_entities([kb.id], name="Ada Lovelace", limit=10) == []
    assert ctx.graph.entity_counts(kb.id) == {"entities": 3, "relations": 2}
    [b1] = texts_of(ctx, second)
    around = ctx.graph.neighbourhood([kb.id], harbour.id, depth=1, limit=20)
    assert around is not None
    for relation in around.relations:
        sources = ctx.graph.relation_sources([kb.id], relation.id)
        assert sources is not None and [s.chunk_id for s in sources] == [b1.id]


def test_expected_subtasks_add_the_graph_chunks_to_the_other_kinds(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    def answer(request: ChatRequest) -> str:
        schema = request.schema or {}
        if "questions" in schema.get("properties", {}):
            return json.dumps({"questions": ["Who runs the harbour crane?"]})
        return graph_of(request)

    with ChatServer(answer=answer) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat))
        questions = {"enabled": True, "question_count": 1, "model": model_config(chat)}
        ctx.knowledge_bases.update(
            None, kb.id, config={**kb.config, "question_generation": questions}
        )
        done = processed(ctx, kb, f"{DOC_A}\n\n{DOC_B}")

    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    texts = texts_of(ctx, done)
    assert len(texts) == 3
    postprocess = spans_of(ctx, done.id)["postprocess"]
    assert postprocess.input["question_subtasks"] == 1
    assert postprocess.input["graph_subtasks"] == len(texts)
    assert (postprocess.output or {})["expected_subtasks"] == 1 + len(texts)
    assert entity(ctx, kb, "Varnholt Harbour").chunk_count == 3


def test_a_dead_letter_removes_what_the_chunk_wrote_and_ends_it(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=graph_of) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat), graph=False)
        done = processed(ctx, kb, DOC_B)
        graph_on = {"vector_enabled": True, "graph_enabled": True}
        ctx.knowledge_bases.update(None, kb.id, config={**kb.config, "indexing": graph_on})
        [b1] = texts_of(ctx, done)
        finalizing(ctx, done.id, 2)
        assert extract_graph(ctx, payload_of(done, b1.id, 1)) is True
    assert entity(ctx, kb, "Osk Trading").chunk_count == 1
    # As if the last try had crashed after its write, before its end.
    with ctx.db.session() as session:
        session.execute(delete(SubtaskEnd).where(SubtaskEnd.knowledge_id == done.id))
    finalizing(ctx, done.id, 1)
    end_failed(ctx, done, payload_of(done, b1.id, 1), "GRAPH_EXTRACT_FAILED", "crashed: boom")

    assert ctx.graph.entity_counts(kb.id) == {"entities": 0, "relations": 0}
    row = ctx.knowledges.get(done.id, None)
    assert row is not None and row.parse_status == ParseStatus.COMPLETED
    step = spans_of(ctx, done.id)["postprocess.graph.1"]
    assert (step.status, step.error_code, step.error_message) == (
        "failed",
        "GRAPH_EXTRACT_FAILED",
        "crashed: boom",
    )
    # Once ended, a later dead letter changes nothing.
    end_failed(ctx, done, payload_of(done, b1.id, 1), "GRAPH_EXTRACT_FAILED", "again")
    assert spans_of(ctx, done.id)["postprocess.graph.1"].error_message == "crashed: boom"
