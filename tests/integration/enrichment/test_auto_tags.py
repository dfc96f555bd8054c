"""knowledge:auto_tag through real parts: a migrated PostgreSQL (and SQLite), milvus-lite,
the lite queue with its real retries, a real embedding server and a real chat-completions
server. After a round's post-processing is planned, the knowledge base's summary model picks
among the knowledge base's existing tags (offered as the schema's enum): only those are
linked, at most max_tags, a tagged document is left alone unless retag_tagged, a manual tag
is never removed, and a failure ends the step, never the document."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from core.payloads import AutoTagPayload
from core.statuses import ParseStatus
from storage.db.models import Knowledge
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from workers import task_specs
from workers.context import WorkerContext
from workers.enrichment.auto_tags import auto_tag_knowledge
from workers.lifecycle.enqueue import document_process_payload

TAGS = ("finance", "hydraulics", "pumps", "safety", "valves")
TEXT = "How to service the pump room: bleed the valves, check the pressure, log it."


def picking(*names: str) -> Any:
    """A model that answers these names as its pick."""
    return lambda request: json.dumps({"tags": list(names)})


def processed(
    ctx: WorkerContext,
    embeddings: EmbeddingServer,
    chat: ChatServer,
    auto_tag: dict[str, Any],
    manual_tags: Sequence[str] = (),
) -> tuple[Knowledge, dict[str, str]]:
    """A knowledge of a knowledge base with TAGS and the ``auto_tag`` config, linked to
    ``manual_tags`` at its creation, processed to its end (auto-tags included); and the
    knowledge base's tag ids by name."""
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    kb = ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        config={
            "embedding": embeddings.kb_config(),
            "summary": {
                "model": {"provider": "openai", "model": "tagger", "base_url": chat.base_url}
            },
            "auto_tag": auto_tag,
        },
        embedding_model_key=embeddings.model_key,
    )
    ids = {name: ctx.tags.create(tenant, kb.id, name, "").id for name in TAGS}
    row = ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="manual",
        title="Pump room handbook",
        content=TEXT,
        parse_status="pending",
        enable_status="disabled",
        attempt=1,
        tag_ids=[ids[name] for name in manual_tags],
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, document_process_payload(row, 1)))
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)
    done = ctx.knowledges.get(row.id, None)
    assert done is not None and done.parse_status == ParseStatus.COMPLETED
    return done, ids


def tag_names(ctx: WorkerContext, knowledge: Knowledge, ids: dict[str, str]) -> set[str]:
    names = {tag_id: name for name, tag_id in ids.items()}
    return {names[t] for t in ctx.tags.tags_of([knowledge.id], tenant_id=None)[knowledge.id]}


def step_of(ctx: WorkerContext, knowledge: Knowledge) -> Any:
    spans = {s.name: s for s in ctx.spans.list(knowledge.id, 1, tenant_id=None)}
    return spans["postprocess.auto_tag"]


def schema_of(request: ChatRequest) -> dict[str, Any]:
    assert request.schema is not None
    return dict(request.schema["properties"]["tags"])


def test_only_the_knowledge_bases_existing_tags_are_linked(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=picking("pumps", "plumbing", "valves")) as chat:
        done, ids = processed(ctx, embeddings, chat, {"enabled": True})

        assert tag_names(ctx, done, ids) == {"pumps", "valves"}, "no tag is created"
        listed, total = ctx.tags.list(done.knowledge_base_id, tenant_id=None, limit=50, offset=0)
        assert total == len(TAGS) and [t.name for t in listed] == list(TAGS)
        [asked] = chat.log()
        tags = schema_of(asked)
        assert tags["items"]["enum"] == list(TAGS) and tags["maxItems"] == 3
        assert TEXT in asked.texts[-1] and "Pump room handbook" in asked.texts[-1]
        step = step_of(ctx, done)
        assert (step.status, step.kind, step.stage) == ("done", "step", "postprocess")
        assert step.output["linked"] == ["pumps", "valves"]
        assert done.pending_subtasks_count == 0, "the document did not wait for its tags"


def test_at_most_max_tags_are_linked(ctx: WorkerContext, embeddings: EmbeddingServer) -> None:
    with ChatServer(answer=picking("valves", "pumps", "safety", "hydraulics")) as chat:
        done, ids = processed(ctx, embeddings, chat, {"enabled": True, "max_tags": 2})

        assert tag_names(ctx, done, ids) == {"valves", "pumps"}, "the first two picked"
        [asked] = chat.log()
        assert schema_of(asked)["maxItems"] == 2
        assert "at most 2" in asked.texts[0]


def test_a_tagged_document_is_left_alone_unless_retag_tagged(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=picking("pumps")) as chat:
        kept, ids = processed(ctx, embeddings, chat, {"enabled": True}, manual_tags=["finance"])

        assert chat.log() == [], "no model call for a tagged document"
        assert tag_names(ctx, kept, ids) == {"finance"}
        assert step_of(ctx, kept).status == "skipped"

    with ChatServer(answer=picking("pumps", "finance")) as chat:
        retagged, ids = processed(
            ctx, embeddings, chat, {"enabled": True, "retag_tagged": True}, manual_tags=["safety"]
        )

        assert len(chat.log()) == 1
        assert tag_names(ctx, retagged, ids) == {"safety", "pumps", "finance"}, "manual kept"


def test_a_refused_model_fails_the_step_not_the_document(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(fail=lambda n: 401) as chat:
        done, ids = processed(ctx, embeddings, chat, {"enabled": True})

        assert len(chat.log()) == 1, "bad credentials are not tried again"
        assert tag_names(ctx, done, ids) == set()
        step = step_of(ctx, done)
        assert step.status == "failed" and step.error_code == "MODEL_UNAUTHORIZED"
        assert "401" in step.error_message
        assert done.parse_status == ParseStatus.COMPLETED


def test_an_unavailable_model_is_tried_again_by_the_queue(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    # The client tries each call twice (model_max_retries=1): the queue's first try fails.
    with ChatServer(answer=picking("safety"), fail=lambda n: 503 if n <= 2 else None) as chat:
        done, ids = processed(ctx, embeddings, chat, {"enabled": True})

        assert len(chat.log()) == 3
        assert tag_names(ctx, done, ids) == {"safety"}
        step = step_of(ctx, done)
        assert (step.status, step.input["queue_try"]) == ("done", 2)


def test_a_round_that_is_not_current_gets_no_tags(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=picking("pumps")) as chat:
        done, ids = processed(ctx, embeddings, chat, {"enabled": False})
        payload = AutoTagPayload(done.tenant_id, done.id, done.knowledge_base_id, attempt=2)

        assert auto_tag_knowledge(ctx, payload) == []
        assert chat.log() == [] and tag_names(ctx, done, ids) == set()
        assert "postprocess.auto_tag" not in {
            s.name for s in ctx.spans.list(done.id, 1, tenant_id=None)
        }, "a disabled auto_tag config queues nothing"
