"""knowledge:graph_extract through real parts: a migrated PostgreSQL (and SQLite) with its
graph store, milvus-lite, the lite queue with its real retries, a real OpenAI-compatible
embedding server and a real chat-completions server answering in structured output. A
round's graph chunks get one task each; each asks the extraction model for the chunk's
entities and relations, held to the configured types, merges them into the knowledge
base's graph and ends once: the knowledge leaves finalizing when the last one ends,
whatever the model did, and a task of a round that is no longer current writes nothing
and counts nothing."""

from collections.abc import Mapping
from typing import Any

import pytest

from core.effective_config import resolve
from core.statuses import ChunkType, ParseStatus
from storage.db.repositories.chunks import NewChunk
from tests.integration.enrichment.graph_support import (
    DOC_A,
    DOC_B,
    ENTITY_TYPES,
    RELATION_TYPES,
    entity,
    extract_config,
    finalizing,
    graph_of,
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
from workers.enrichment.graph_extract import extract_graph
from workers.pipeline.stages.graph_subtask import GraphSubtask
from workers.pipeline.stages.work import DocumentWork


@pytest.fixture(autouse=True)
def installed(ctx: WorkerContext) -> None:
    # The queue's handlers run on the current context: this module's backend's.
    install_context(ctx)


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
