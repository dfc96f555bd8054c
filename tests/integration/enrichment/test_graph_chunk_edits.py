"""A chunk content edit and the knowledge graph, through real parts: ChunkEditService on a
migrated PostgreSQL (and SQLite) with its graph store, milvus-lite, the lite queue running
knowledge:graph_refresh, a real embeddings endpoint and a real chat-completions server
answering the extraction schema. After the edit commits, what the old text said is gone,
what the new text says is there, other chunks' rows stay; with the graph off nothing is
asked; a re-extraction whose chunk was edited again meanwhile writes nothing."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import func, select, update

from core.statuses import ChunkType, ParseStatus
from server.services.chunk_edits import ChunkEditService
from server.services.identity import Identity
from storage.db.models import Chunk, Knowledge, KnowledgeBase, Span, SubtaskEnd
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from workers import task_specs
from workers.context import WorkerContext, install_context
from workers.lifecycle.enqueue import document_process_payload

KNOWN = {
    "Ada Lovelace": "person",
    "Mira Kell": "person",
    "Tarn Vell": "person",
    "Varnholt Harbour": "organization",
    "Brekka": "place",
    "Osk Trading": "organization",
}
STATED = [
    ("Ada Lovelace", "Varnholt Harbour", "works_for"),
    ("Mira Kell", "Varnholt Harbour", "works_for"),
    ("Tarn Vell", "Varnholt Harbour", "works_for"),
    ("Varnholt Harbour", "Brekka", "located_in"),
    ("Osk Trading", "Varnholt Harbour", "ships_through"),
]
DOC_A = "Ada Lovelace runs the crane of Varnholt Harbour.\n\nVarnholt Harbour lies in Brekka."
DOC_B = "Osk Trading ships its salt through Varnholt Harbour, in Brekka."
EDITED = "Mira Kell runs the crane of Varnholt Harbour."
EDITED_AGAIN = "Tarn Vell runs the crane of Varnholt Harbour."


@pytest.fixture(autouse=True)
def installed(ctx: WorkerContext) -> None:
    install_context(ctx)


def graph_of(request: ChatRequest) -> str:
    """The entities and relations of the passage asked about, as a model would answer."""
    passage = request.texts[-1]
    return json.dumps(
        {
            "entities": [
                {"name": name, "type": kind, "description": f"{name}, as the log names it."}
                for name, kind in KNOWN.items()
                if name in passage
            ],
            "relations": [
                {"source": s, "target": t, "relation": r, "description": f"{s} {r} {t}."}
                for s, t, r in STATED
                if s in passage and t in passage
            ],
        }
    )


def join(ctx: WorkerContext) -> None:
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)


def new_kb(ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer) -> KnowledgeBase:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    return ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={
            "embedding": embeddings.kb_config(),
            "chunking": {"chunk_size": 80, "chunk_overlap": 0},
            "indexing": {"vector_enabled": True, "keyword_enabled": True, "graph_enabled": True},
            "extract": {
                "enabled": True,
                "entity_types": ["person", "organization", "place"],
                "relation_types": ["works_for", "located_in", "ships_through"],
                "model": {"provider": "openai", "model": "extractor", "base_url": chat.base_url},
            },
        },
        embedding_model_key=embeddings.model_key,
        storage_backend_id="",
    )


def processed(ctx: WorkerContext, kb: KnowledgeBase, text: str) -> Knowledge:
    row = ctx.knowledges.create(
        tenant_id=kb.tenant_id,
        knowledge_base_id=kb.id,
        type="manual",
        title="Harbour log",
        content=text,
        parse_status="pending",
        enable_status="disabled",
        attempt=1,
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, document_process_payload(row, 1)))
    join(ctx)
    done = ctx.knowledges.get(row.id, None)
    assert done is not None and done.parse_status == ParseStatus.COMPLETED
    return done


def texts_of(ctx: WorkerContext, knowledge: Knowledge) -> list[Chunk]:
    return ctx.chunks.list_of_types(knowledge.id, knowledge.attempt, [ChunkType.TEXT])


def entities(ctx: WorkerContext, kb: KnowledgeBase) -> dict[str, tuple[int, int]]:
    """Entity name: (chunk_count, knowledge_count)."""
    return {
        e.name: (e.chunk_count, e.knowledge_count)
        for e in ctx.graph.find_entities([kb.id], limit=100)
    }


def edges(ctx: WorkerContext, kb: KnowledgeBase) -> dict[tuple[str, str, str], set[str]]:
    """(source, relation, target) names: the chunk ids behind it."""
    [harbour] = ctx.graph.find_entities([kb.id], name="Varnholt Harbour", limit=1)
    around = ctx.graph.neighbourhood([kb.id], harbour.id, depth=1, limit=100)
    assert around is not None
    name = {e.id: e.name for e in [around.center, *around.entities]}
    found: dict[tuple[str, str, str], set[str]] = {}
    for relation in around.relations:
        sources = ctx.graph.relation_sources([kb.id], relation.id)
        assert sources is not None
        key = (name[relation.source_id], relation.relation, name[relation.target_id])
        found[key] = {s.chunk_id for s in sources}
    return found


def round_books(ctx: WorkerContext, knowledge_id: str) -> tuple[Any, ...]:
    """What a round's subtasks count: the knowledge's status, attempt and pending count, its
    subtask ends and spans."""
    with ctx.db.session() as session:
        row = session.get(Knowledge, knowledge_id)
        assert row is not None
        ends = session.scalar(
            select(func.count()).select_from(SubtaskEnd).where(SubtaskEnd.knowledge_id == row.id)
        )
        spans = session.scalar(
            select(func.count()).select_from(Span).where(Span.knowledge_id == row.id)
        )
        return row.parse_status, row.attempt, row.pending_subtasks_count, ends, spans


def wait_until(done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_an_edit_replaces_the_chunks_graph_and_keeps_the_others(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=graph_of) as chat:
        kb = new_kb(ctx, embeddings, chat)
        first, second = processed(ctx, kb, DOC_A), processed(ctx, kb, DOC_B)
        a1, a2 = texts_of(ctx, first)
        [b1] = texts_of(ctx, second)
        assert entities(ctx, kb)["Ada Lovelace"] == (1, 1)
        books = round_books(ctx, first.id)
        asked = len(chat.log())

        ChunkEditService(ctx).update_content(Identity(kb.tenant_id, is_admin=False), a1.id, EDITED)
        join(ctx)

        [again] = chat.log()[asked:]
        assert again.texts[-1].endswith(EDITED), "one re-extraction, of the new text"
    assert entities(ctx, kb) == {
        "Mira Kell": (1, 1),
        "Varnholt Harbour": (3, 2),
        "Brekka": (2, 2),
        "Osk Trading": (1, 1),
    }, "the old text's Ada Lovelace is gone, the new text's Mira Kell is there"
    assert edges(ctx, kb) == {
        ("Mira Kell", "works_for", "Varnholt Harbour"): {a1.id},
        ("Varnholt Harbour", "located_in", "Brekka"): {a2.id, b1.id},
        ("Osk Trading", "ships_through", "Varnholt Harbour"): {b1.id},
    }
    assert round_books(ctx, first.id) == books, "uncounted: no subtask end, count or span"


def test_with_the_graph_off_an_edit_removes_the_chunks_rows_and_asks_nothing(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=graph_of) as chat:
        kb = new_kb(ctx, embeddings, chat)
        first, second = processed(ctx, kb, DOC_A), processed(ctx, kb, DOC_B)
        a1, a2 = texts_of(ctx, first)
        [b1] = texts_of(ctx, second)
        config = {**kb.config, "indexing": {**kb.config["indexing"], "graph_enabled": False}}
        with ctx.db.session() as session:
            session.execute(
                update(KnowledgeBase).where(KnowledgeBase.id == kb.id).values(config=config)
            )
        asked = len(chat.log())

        ChunkEditService(ctx).update_content(Identity(kb.tenant_id, is_admin=False), a1.id, EDITED)
        assert isinstance(ctx.queue, LiteTaskQueue) and not ctx.queue.is_queued(first.id)
        join(ctx)

        assert len(chat.log()) == asked, "nothing queued, nothing asked"
    assert entities(ctx, kb) == {
        "Varnholt Harbour": (2, 2),
        "Brekka": (2, 2),
        "Osk Trading": (1, 1),
    }
    assert edges(ctx, kb) == {
        ("Varnholt Harbour", "located_in", "Brekka"): {a2.id, b1.id},
        ("Osk Trading", "ships_through", "Varnholt Harbour"): {b1.id},
    }


def test_a_re_extraction_of_a_chunk_edited_again_meanwhile_writes_nothing(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    released = {name: threading.Event() for name in ("Mira Kell", "Tarn Vell")}

    def held(request: ChatRequest) -> str:
        # Each edit's re-extraction answers when the test lets it.
        for name, event in released.items():
            if name in request.texts[-1]:
                assert event.wait(30)
        return graph_of(request)

    def asked_about(name: str) -> Callable[[], bool]:
        return lambda: any(name in r.texts[-1] for r in chat.log())

    with ChatServer(answer=held) as chat:
        kb = new_kb(ctx, embeddings, chat)
        knowledge = processed(ctx, kb, DOC_A)
        a1, _ = texts_of(ctx, knowledge)
        edits = ChunkEditService(ctx)
        identity = Identity(kb.tenant_id, is_admin=False)

        edits.update_content(identity, a1.id, EDITED)
        wait_until(asked_about("Mira Kell"), "the first re-extraction asks the model")
        edits.update_content(identity, a1.id, EDITED_AGAIN)
        released["Mira Kell"].set()
        # The test context's lite queue runs the graph queue on one thread: the second
        # re-extraction asks once the first one has ended.
        wait_until(asked_about("Tarn Vell"), "the second re-extraction asks the model")
        assert entities(ctx, kb) == {"Varnholt Harbour": (1, 1), "Brekka": (1, 1)}, (
            "the first edit's answer, given after the second edit, is dropped"
        )
        released["Tarn Vell"].set()
        join(ctx)

    assert entities(ctx, kb) == {
        "Tarn Vell": (1, 1),
        "Varnholt Harbour": (2, 1),
        "Brekka": (1, 1),
    }
    assert ("Tarn Vell", "works_for", "Varnholt Harbour") in edges(ctx, kb)


def test_a_queue_that_is_down_leaves_the_edit_standing(
    ctx: WorkerContext, embeddings: EmbeddingServer, caplog: pytest.LogCaptureFixture
) -> None:
    with ChatServer(answer=graph_of) as chat:
        kb = new_kb(ctx, embeddings, chat)
        knowledge = processed(ctx, kb, DOC_A)
        a1, _ = texts_of(ctx, knowledge)
        down = LiteTaskQueue()
        down.close()

        edited = ChunkEditService(replace(ctx, queue=down)).update_content(
            Identity(kb.tenant_id, is_admin=False), a1.id, EDITED
        )

    assert edited.content == EDITED
    assert f"graph refresh of edited chunk {a1.id} not queued" in caplog.text
    assert "Ada Lovelace" not in entities(ctx, kb), "the old text's rows are gone all the same"
