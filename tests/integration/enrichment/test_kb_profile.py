"""kb:profile through real parts: a migrated PostgreSQL (and SQLite), milvus-lite, the lite
queue, a real embedding server and a real chat-completions server. A document knowledge base
with the profile enabled gets its description written by its summary model from its
documents' titles and summaries when a round is planned, a summary ends or a document is
deleted; an unchanged aggregate is never sent to the model again, a changed one is; requests
of one window share one task; a knowledge base with the profile off queues nothing."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable

from sqlalchemy import update

from core.payloads import KnowledgeBaseProfilePayload
from core.statuses import KnowledgeBaseType
from storage.db.models import Knowledge, KnowledgeBase
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from workers import task_specs
from workers.context import WorkerContext
from workers.lifecycle.deletion import delete_marked, mark_deleting
from workers.lifecycle.enqueue import document_process_payload
from workers.profile_request import request_profile_refresh

SUMMARY = "A field guide to the tidal pools of Merrow Bay and the crabs that live in them."
PROFILE = "Guides to the shore life of Merrow Bay: tidal pools, crabs and when to visit."
# Windows far apart from each other and from now: each request below is a window of its own.
WINDOWS = itertools.count(1_000_000)


def window_time() -> Callable[[], float]:
    at = next(WINDOWS) * task_specs.PROFILE_WINDOW_S
    return lambda: float(at)


def is_profile(request: ChatRequest) -> bool:
    return "describe a knowledge base" in request.texts[0]


def answer(request: ChatRequest) -> str:
    return PROFILE if is_profile(request) else SUMMARY


def profile_calls(chat: ChatServer) -> list[ChatRequest]:
    return [r for r in chat.log() if is_profile(r)]


def knowledge_base(
    ctx: WorkerContext,
    embeddings: EmbeddingServer,
    chat: ChatServer,
    *,
    profile: bool = True,
    kb_type: str = KnowledgeBaseType.DOCUMENT,
) -> KnowledgeBase:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    model = {"provider": "openai", "model": "writer", "base_url": chat.base_url}
    return ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        type=kb_type,
        config={
            "embedding": embeddings.kb_config(),
            "summary": {"enabled": True, "model": model},
            "profile": {"enabled": profile},
        },
        embedding_model_key=embeddings.model_key,
    )


def processed(ctx: WorkerContext, kb: KnowledgeBase, title: str) -> Knowledge:
    row = ctx.knowledges.create(
        tenant_id=kb.tenant_id,
        knowledge_base_id=kb.id,
        type="manual",
        title=title,
        content="The tidal pools of Merrow Bay fill twice a day; shore crabs hide under rocks.",
        parse_status="pending",
        enable_status="disabled",
        attempt=1,
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, document_process_payload(row, 1)))
    settle(ctx)
    done = ctx.knowledges.get(row.id, None)
    assert done is not None
    return done


def settle(ctx: WorkerContext) -> None:
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)


def stored(ctx: WorkerContext, kb: KnowledgeBase) -> KnowledgeBase:
    row = ctx.knowledge_bases.get(None, kb.id)
    assert row is not None
    return row


def test_the_profile_is_written_from_titles_and_summaries_and_not_again_unchanged(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=answer) as chat:
        kb = knowledge_base(ctx, embeddings, chat)
        processed(ctx, kb, "Merrow Bay tidal pools")

        written = stored(ctx, kb)
        assert written.profile_description == PROFILE
        assert len(written.profile_hash) == 64 and written.profile_generated_at is not None
        last = profile_calls(chat)[-1]
        assert "Merrow Bay tidal pools" in last.texts[-1] and SUMMARY in last.texts[-1]
        calls = len(profile_calls(chat))

        assert request_profile_refresh(ctx, kb.id, now=window_time()) is not None
        settle(ctx)
        assert len(profile_calls(chat)) == calls, "the same aggregate is not sent again"
        assert stored(ctx, kb).profile_generated_at == written.profile_generated_at


def test_a_changed_summary_gets_a_new_description(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    descriptions = iter(["First profile.", "Second profile."])

    def describe(request: ChatRequest) -> str:
        return next(descriptions) if is_profile(request) else SUMMARY

    with ChatServer(answer=describe) as chat:
        kb = knowledge_base(ctx, embeddings, chat, profile=False)
        done = processed(ctx, kb, "Crab census")
        # The profile switched on now: each request below is one explicit refresh.
        config = {**kb.config, "profile": {"enabled": True}}
        ctx.knowledge_bases.update(None, kb.id, config=config)
        request_profile_refresh(ctx, kb.id, now=window_time())
        settle(ctx)
        first = stored(ctx, kb)
        assert first.profile_description == "First profile."

        with ctx.db.session() as session:
            session.execute(
                update(Knowledge)
                .where(Knowledge.id == done.id)
                .values(summary="A census of the shore crabs of Merrow Bay, by species.")
            )
        request_profile_refresh(ctx, kb.id, now=window_time())
        settle(ctx)

        second = stored(ctx, kb)
        assert second.profile_description == "Second profile."
        assert second.profile_hash != first.profile_hash
        assert "by species" in profile_calls(chat)[-1].texts[-1]
        assert len(profile_calls(chat)) == 2


def test_a_knowledge_base_with_the_profile_off_queues_nothing(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=answer) as chat:
        kb = knowledge_base(ctx, embeddings, chat, profile=False)
        processed(ctx, kb, "Merrow Bay tides")
        faq = knowledge_base(ctx, embeddings, chat, kb_type=KnowledgeBaseType.FAQ)

        assert request_profile_refresh(ctx, kb.id, now=window_time()) is None
        assert request_profile_refresh(ctx, faq.id, now=window_time()) is None
        settle(ctx)
        assert profile_calls(chat) == [] and len(chat.log()) == 1, "the summary only"
        assert stored(ctx, kb).profile_generated_at is None


def test_requests_within_one_window_share_one_task(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=answer) as chat:
        kb = knowledge_base(ctx, embeddings, chat, profile=False)
        processed(ctx, kb, "Merrow Bay rock pools")
        ctx.knowledge_bases.update(None, kb.id, config={**kb.config, "profile": {"enabled": True}})
        chat.delay_s = 1.0  # the first task is still at the model when the others arrive
        now = window_time()

        job_ids = {request_profile_refresh(ctx, kb.id, now=now) for _ in range(3)}
        settle(ctx)
        later = request_profile_refresh(ctx, kb.id, now=lambda: now() + 30)
        settle(ctx)

        [job_id] = job_ids
        assert job_id == f"kb-profile-{kb.id}-{int(now() // 30)}"
        assert later is not None and later != job_id, "the next window is a task of its own"
        assert len(profile_calls(chat)) == 1, "the next window's task found it unchanged"


def test_a_deleted_document_refreshes_the_profile(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=answer) as chat:
        kb = knowledge_base(ctx, embeddings, chat)
        done = processed(ctx, kb, "Merrow Bay tidal pools")
        assert stored(ctx, kb).profile_description == PROFILE
        calls = len(profile_calls(chat))

        delete_marked(ctx, mark_deleting(ctx, [done.id]))
        settle(ctx)

        emptied = stored(ctx, kb)
        assert emptied.profile_description == "", "no documents: an empty profile"
        assert len(profile_calls(chat)) == calls, "written without the model"


def test_a_forced_profile_is_written_again_unchanged(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=answer) as chat:
        kb = knowledge_base(ctx, embeddings, chat, profile=False)
        processed(ctx, kb, "Merrow Bay tidal pools")
        payload = KnowledgeBaseProfilePayload(kb.id, force=True)
        for _ in range(2):
            ctx.queue.enqueue(task_specs.kb_profile(payload, window_time()()))
            settle(ctx)

        assert len(profile_calls(chat)) == 2, "the on-demand one ignores the hash"
        assert stored(ctx, kb).profile_description == PROFILE
