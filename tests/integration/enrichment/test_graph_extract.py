"""knowledge:graph_extract through real parts: a migrated PostgreSQL (and SQLite) with its
graph store, milvus-lite, the lite queue with its real retries, a real OpenAI-compatible
embedding server and a real chat-completions server answering in structured output. A
round's graph chunks get one task each; each asks the extraction model for the chunk's
entities and relations, held to the configured types, merges them into the knowledge
base's graph and ends once: the knowledge leaves finalizing when the last one ends,
whatever the model did, and a task of a round that is no longer current writes nothing
and counts nothing."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from sqlalchemy import delete, update

from core.effective_config import resolve
from core.payloads import GraphExtractPayload
from core.statuses import ChunkType, ParseStatus
from storage.db.models import Knowledge, SubtaskEnd
from storage.db.repositories.chunks import NewChunk
from storage.graph.store import ChunkExtraction, Entity, ExtractedEntity
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from workers import task_specs
from workers.context import WorkerContext, install_context
from workers.enrichment.graph_extract import MALFORMED_ASKS, end_failed, extract_graph
from workers.lifecycle.enqueue import document_process_payload
from workers.lifecycle.reparse import restart_processing
from workers.pipeline.stages.graph_subtask import GraphSubtask
from workers.pipeline.stages.work import DocumentWork

ENTITY_TYPES = ["person", "organization", "place"]
RELATION_TYPES = ["works_for", "located_in", "ships_through"]
# What the "model" knows: the entities it finds by name in a passage, and the relations
# it states when both ends are there.
KNOWN = {
    "Ada Lovelace": "Person",
    "Varnholt Harbour": "organization",
    "Brekka": "place",
    "Osk Trading": "organization",
}
STATED = [
    ("Ada Lovelace", "Varnholt Harbour", "works_for"),
    ("Varnholt Harbour", "Brekka", "located_in"),
    ("Osk Trading", "Varnholt Harbour", "ships_through"),
]
DOC_A = "Ada Lovelace runs the crane of Varnholt Harbour.\n\nVarnholt Harbour lies in Brekka."
DOC_B = "Osk Trading ships its salt through Varnholt Harbour, in Brekka."


@pytest.fixture(autouse=True)
def installed(ctx: WorkerContext) -> None:
    # The queue's handlers run on the current context: this module's backend's.
    install_context(ctx)


def passage_of(request: ChatRequest) -> str:
    return request.texts[-1]


def graph_of(request: ChatRequest, extra: Mapping[str, Sequence[Any]] | None = None) -> str:
    """The entities and relations of the passage asked about, as a model would answer."""
    passage = passage_of(request)
    entities = [
        {"name": name, "type": kind, "description": f"{name}, as the log names it."}
        for name, kind in KNOWN.items()
        if name in passage
    ]
    relations = [
        {"source": s, "target": t, "relation": r, "description": f"{s} {r} {t}."}
        for s, t, r in STATED
        if s in passage and t in passage
    ]
    answer: dict[str, list[Any]] = {"entities": entities, "relations": relations}
    for key, items in (extra or {}).items():
        answer[key] = [*answer[key], *items]
    return json.dumps(answer)


def model_config(server: ChatServer) -> dict[str, Any]:
    return {"provider": "openai", "model": "extractor", "base_url": server.base_url}


def new_kb(
    ctx: WorkerContext,
    embeddings: EmbeddingServer,
    extract: Mapping[str, Any],
    *,
    graph: bool = True,
) -> Any:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    return ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={
            "embedding": embeddings.kb_config(),
            "chunking": {"chunk_size": 80, "chunk_overlap": 0},
            "indexing": {"vector_enabled": True, "keyword_enabled": True, "graph_enabled": graph},
            "extract": dict(extract),
        },
        embedding_model_key=embeddings.model_key,
        storage_backend_id="",
    )


def extract_config(chat: ChatServer | None, **more: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "enabled": True,
        "entity_types": ENTITY_TYPES,
        "relation_types": RELATION_TYPES,
        **more,
    }
    if chat is not None:
        config["model"] = model_config(chat)
    return config


def processed(ctx: WorkerContext, kb: Any, text: str, title: str = "Harbour log") -> Knowledge:
    """A manual knowledge of ``text`` in ``kb``, its round run to its end."""
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
    return done


def texts_of(ctx: WorkerContext, knowledge: Knowledge, attempt: int = 1) -> list[Any]:
    return ctx.chunks.list_of_types(knowledge.id, attempt, [ChunkType.TEXT])


def spans_of(ctx: WorkerContext, knowledge_id: str, attempt: int = 1) -> dict[str, Any]:
    return {s.name: s for s in ctx.spans.list(knowledge_id, attempt, tenant_id=None)}


def entity(ctx: WorkerContext, kb: Any, name: str) -> Entity:
    [found] = [e for e in ctx.graph.find_entities([kb.id], name=name, limit=10) if e.name == name]
    return found


def finalizing(ctx: WorkerContext, knowledge_id: str, pending: int, attempt: int = 1) -> None:
    with ctx.db.session() as session:
        session.execute(
            update(Knowledge)
            .where(Knowledge.id == knowledge_id)
            .values(
                parse_status=ParseStatus.FINALIZING,
                pending_subtasks_count=pending,
                attempt=attempt,
            )
        )


def payload_of(knowledge: Knowledge, chunk_id: str, index: int, attempt: int = 1) -> Any:
    return GraphExtractPayload(
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        knowledge_base_id=knowledge.knowledge_base_id,
        attempt=attempt,
        chunk_id=chunk_id,
        index=index,
    )


def test_two_documents_sharing_entities_build_one_merged_graph(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=graph_of, delay_s=0.05) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat))
        first = processed(ctx, kb, DOC_A)
        second = processed(ctx, kb, DOC_B, title="Trade log")
        asked = chat.log()

    for done in (first, second):
        assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    a1, a2 = texts_of(ctx, first)
    [b1] = texts_of(ctx, second)
    assert len(asked) == 3, "one call per graph chunk"
    schema = asked[0].schema
    assert schema is not None
    entity_schema = schema["properties"]["entities"]["items"]["properties"]
    assert entity_schema["type"]["enum"] == ENTITY_TYPES
    relation_schema = schema["properties"]["relations"]["items"]["properties"]
    assert relation_schema["relation"]["enum"] == RELATION_TYPES

    harbour = entity(ctx, kb, "Varnholt Harbour")
    assert (harbour.type, harbour.knowledge_count, harbour.chunk_count) == ("organization", 2, 3)
    ada = entity(ctx, kb, "Ada Lovelace")
    assert (ada.type, ada.chunk_count) == ("person", 1), "the configured spelling of the type"
    assert ctx.graph.entity_counts(kb.id) == {"entities": 4, "relations": 3}
    around = ctx.graph.neighbourhood([kb.id], harbour.id, depth=1, limit=20)
    assert around is not None
    relations = {r.relation: r for r in around.relations}
    assert relations.keys() == set(RELATION_TYPES)
    located = ctx.graph.relation_sources([kb.id], relations["located_in"].id)
    assert located is not None
    assert {(s.chunk_id, s.knowledge_id) for s in located} == {
        (a2.id, first.id),
        (b1.id, second.id),
    }
    works = ctx.graph.relation_sources([kb.id], relations["works_for"].id)
    assert works is not None and [s.chunk_id for s in works] == [a1.id]

    spans = spans_of(ctx, first.id)
    assert (spans["postprocess"].output or {})["expected_subtasks"] == 2
    assert spans["postprocess"].input["graph_subtasks"] == 2
    for index, (entities, relations_found) in ((1, (2, 1)), (2, (2, 1))):
        step = spans[f"postprocess.graph.{index}"]
        assert (step.status, step.kind, step.parent_id) == ("done", "step", spans["postprocess"].id)
        assert step.output == {"entities": entities, "relations": relations_found, "asks": 1}
        assert step.input["entity_types"] == ENTITY_TYPES
    assert spans["knowledge_processing"].status == "done"


def test_the_graph_chunks_are_text_and_a_scanned_pages_ocr_never_its_captions(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = new_kb(
        ctx,
        embeddings,
        extract_config(None, model={"model": "x", "base_url": "http://127.0.0.1:9/v1"}),
    )
    row = ctx.knowledges.create(
        tenant_id=kb.tenant_id,
        knowledge_base_id=kb.id,
        type="manual",
        title="Scanned log",
        content="",
        parse_status="processing",
        attempt=1,
    )

    def chunk(index: int, content: str, **more: Any) -> NewChunk:
        return NewChunk(
            tenant_id=kb.tenant_id,
            knowledge_base_id=kb.id,
            knowledge_id=row.id,
            attempt=1,
            chunk_index=index,
            content=content,
            **more,
        )

    text = chunk(0, "Ada Lovelace runs the crane ![photo](resource://r/crane.png).")
    scan = chunk(1, "![page 1](resource://r/p1.png)\n![page 2](resource://r/p2.png)")
    blank_scan = chunk(2, "![page 3](resource://r/p3.png)")
    disabled = chunk(3, "A paragraph switched off.", is_enabled=False)
    children = [
        chunk(0, "Crane photo OCR", chunk_type=ChunkType.IMAGE_OCR, parent_chunk_id=text.id),
        chunk(1, "Page 1: Osk Trading", chunk_type=ChunkType.IMAGE_OCR, parent_chunk_id=scan.id),
        chunk(2, "Page 2: Brekka", chunk_type=ChunkType.IMAGE_OCR, parent_chunk_id=scan.id),
        chunk(3, "A scanned page", chunk_type=ChunkType.IMAGE_CAPTION, parent_chunk_id=scan.id),
        chunk(4, "  ", chunk_type=ChunkType.IMAGE_OCR, parent_chunk_id=blank_scan.id),
        chunk(
            5, "Page 3 caption", chunk_type=ChunkType.IMAGE_CAPTION, parent_chunk_id=blank_scan.id
        ),
    ]
    ctx.chunks.insert_many([text, scan, blank_scan, disabled, *children])

    def planned(config: Mapping[str, Any]) -> list[str]:
        kind = GraphSubtask(ctx.queue, ctx.chunks)
        work = DocumentWork(row, 1, resolve({**kb.config, **config}, None), kb.embedding_model_key)
        assert kind.planned(work) == len(kind.chunk_ids(work))
        return kind.chunk_ids(work)

    assert planned({}) == [text.id, children[1].id, children[2].id]
    off = {"indexing": {"vector_enabled": True, "graph_enabled": False}}
    assert planned(off) == []
    assert planned({"extract": {"enabled": False}}) == [], "graph needs extraction enabled"
    assert planned({"extract": {"enabled": True}}) == [""], "one NO_EXTRACT_MODEL task"


def test_the_ocr_text_of_a_scanned_page_is_what_the_model_reads(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=graph_of) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat))
        row = processed(ctx, kb, "![page 1](resource://r/p1.png)")
        [page] = texts_of(ctx, row)
        ocr = NewChunk(
            tenant_id=kb.tenant_id,
            knowledge_base_id=kb.id,
            knowledge_id=row.id,
            attempt=1,
            chunk_index=0,
            content="Osk Trading ships through Varnholt Harbour.",
            chunk_type=ChunkType.IMAGE_OCR,
            parent_chunk_id=page.id,
        )
        ctx.chunks.insert_many([ocr])
        finalizing(ctx, row.id, 1)
        assert extract_graph(ctx, payload_of(row, ocr.id, 1)) is True
        assert "Osk Trading ships through" in passage_of(chat.log()[-1])

    mention = entity(ctx, kb, "Osk Trading")
    assert (mention.chunk_count, mention.knowledge_count) == (1, 1)
    step = spans_of(ctx, row.id)["postprocess.graph.1"]
    assert step.input["chunk_type"] == ChunkType.IMAGE_OCR
    again = ctx.knowledges.get(row.id, None)
    assert again is not None and again.parse_status == ParseStatus.COMPLETED


def test_off_list_types_and_dangling_relations_are_dropped_and_said(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    def with_extras(request: ChatRequest) -> str:
        return graph_of(
            request,
            {
                "entities": [{"name": "salt", "type": "commodity", "description": "cargo"}],
                "relations": [
                    {
                        "source": "Osk Trading",
                        "target": "salt",
                        "relation": "ships_through",
                        "description": "salt is not an entity here",
                    },
                    {
                        "source": "Osk Trading",
                        "target": "Brekka",
                        "relation": "sells_in",
                        "description": "not a configured relation",
                    },
                ],
            },
        )

    with ChatServer(answer=with_extras) as chat:
        kb = new_kb(ctx, embeddings, extract_config(chat))
        done = processed(ctx, kb, DOC_B)

    assert done.parse_status == ParseStatus.COMPLETED
    assert ctx.graph.find_entities([kb.id], name="salt", limit=10) == []
    assert ctx.graph.entity_counts(kb.id) == {"entities": 3, "relations": 2}
    step = spans_of(ctx, done.id)["postprocess.graph.1"]
    assert step.status == "done"
    assert (step.output or {})["dropped"] == {
        "entities_off_type": 1,
        "relations_without_entities": 1,
        "relations_off_type": 1,
    }


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
