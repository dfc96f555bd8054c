"""What the graph extraction tests share: the configured types, two documents that share
entities, a chat-server answer that extracts them, knowledge bases and rounds set up through
the real parts, and readers of what a round left."""

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import update

from core.payloads import GraphExtractPayload
from core.statuses import ChunkType, ParseStatus
from storage.db.models import Knowledge
from storage.graph.store import Entity
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from workers import task_specs
from workers.context import WorkerContext
from workers.lifecycle.enqueue import document_process_payload

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
