"""knowledge:summary_refresh through real parts (migrated PostgreSQL and SQLite, milvus-lite,
the lite queue, real embedding and chat-completions servers), driven by the real edit
services: an edit of a completed knowledge's text chunk or metadata queues one refresh and
the summary ends up written from the newest inputs; edits while a refresh waits share it;
a refresh raced by an edit drops its result and the newer one finishes the job; a database
error is tried again, a deleted knowledge is a no-op; RegenerateSummary's statuses; the
edits cascade to a text chunk's children; a reparse ends an open refresh."""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import text

from core.effective_config import resolve
from core.errors import FailedPrecondition, NotFound
from core.payloads import SummaryRefreshPayload
from core.statuses import ChunkType, ParseStatus, SummaryStatus
from server.services.chunk_edits import ChunkEditService
from server.services.identity import Identity
from server.services.knowledge_edits import KnowledgeEditService
from server.services.summary_refresh import SummaryRefreshService
from storage.db.models import Chunk, Knowledge
from storage.db.repositories.chunks import NewChunk
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from workers import task_specs
from workers.context import WorkerContext
from workers.lifecycle.enqueue import document_process_payload
from workers.lifecycle.reparse import RestartOutcome, restart_processing
from workers.pipeline.chunks.indexing import ChunkIndexer

OLD_FACT = "Fact: the keeper logs 412 ships a year."
NEW_FACT = "Fact: the keeper logs 977 ships a year."
NEWEST_FACT = "Fact: the keeper logs 1234 ships a year."


def summary_answer(request: ChatRequest) -> str:
    """A summary made of the facts the model was given: what reached it shows."""
    facts = re.findall(r"Fact: [^.]*\.", request.texts[-1] if request.texts else "")
    return " ".join(["The Varnholt lighthouse report.", *facts])


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    with ChatServer(answer=summary_answer) as server:
        yield server


def join(ctx: WorkerContext) -> None:
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)


def completed(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer | None
) -> tuple[Knowledge, Identity]:
    """A knowledge processed to completed with its first summary (of OLD_FACT), in a
    knowledge base whose summary model is ``chat`` (None: no summary model)."""
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    summary: dict[str, Any] = (
        {"enabled": True, "model": {"provider": "openai", "model": "s", "base_url": chat.base_url}}
        if chat is not None
        else {}
    )
    kb = ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={"embedding": embeddings.kb_config(), "summary": summary},
        embedding_model_key=embeddings.model_key,
        storage_backend_id="",
    )
    row = ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="manual",
        title="Varnholt report",
        content=f"The harbour records of the year. {OLD_FACT}",
        parse_status="pending",
        enable_status="disabled",
        attempt=1,
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, document_process_payload(row, 1)))
    join(ctx)
    done = ctx.knowledges.get(row.id, None)
    assert done is not None and done.parse_status == ParseStatus.COMPLETED
    return done, Identity(tenant, is_admin=False)


def reread(ctx: WorkerContext, knowledge_id: str) -> Knowledge:
    row = ctx.knowledges.get(knowledge_id, None)
    assert row is not None
    return row


def text_chunk(ctx: WorkerContext, knowledge: Knowledge) -> Chunk:
    [chunk] = ctx.chunks.list_of_types(knowledge.id, knowledge.attempt, [ChunkType.TEXT])
    return chunk


def summary_chunk(ctx: WorkerContext, knowledge: Knowledge) -> Chunk:
    [chunk] = ctx.chunks.list_of_types(knowledge.id, knowledge.attempt, [ChunkType.SUMMARY])
    return chunk


def found(ctx: WorkerContext, knowledge: Knowledge, words: str) -> set[str]:
    """The chunk ids keyword search finds for ``words`` in the knowledge (enabled rows)."""
    hits = ctx.index.search_keyword(
        embeddings_key(ctx, knowledge),
        words,
        tenant_ids=[knowledge.tenant_id],
        knowledge_base_ids=[knowledge.knowledge_base_id],
        knowledge_ids=[knowledge.id],
    )
    return {h.chunk_id for h in hits}


def embeddings_key(ctx: WorkerContext, knowledge: Knowledge) -> str:
    kb = ctx.knowledge_bases.get(None, knowledge.knowledge_base_id)
    assert kb is not None
    return kb.embedding_model_key


def wait_for_requests(chat: ChatServer, count: int) -> None:
    deadline = time.monotonic() + 30
    while len(chat.log()) < count:
        assert time.monotonic() < deadline, f"the model got {len(chat.log())} of {count} calls"
        time.sleep(0.02)


def test_an_edit_queues_a_refresh_that_writes_and_indexes_the_new_summary(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    knowledge, identity = completed(ctx, embeddings, chat)
    assert OLD_FACT in (knowledge.summary or "")
    chunk = text_chunk(ctx, knowledge)

    new_content = chunk.content.replace(OLD_FACT, NEW_FACT)
    ChunkEditService(ctx).update_content(identity, chunk.id, new_content)
    join(ctx)

    after = reread(ctx, knowledge.id)
    assert (after.summary_status, after.summary_stale, after.summary_error) == (
        SummaryStatus.COMPLETED,
        False,
        None,
    )
    assert NEW_FACT in (after.summary or "") and OLD_FACT not in (after.summary or "")
    assert len(chat.log()) == 2  # the first summary and one refresh
    row = summary_chunk(ctx, after)
    assert row.content == after.summary
    assert row.id in found(ctx, after, "977 ships")

    KnowledgeEditService(ctx).update_metadata(identity, knowledge.id, {"harbour": "Kessel Bay"})
    join(ctx)
    assert "harbour: Kessel Bay" in chat.log()[-1].texts[-1]  # the metadata is read too
    assert reread(ctx, knowledge.id).summary_status == SummaryStatus.COMPLETED


def test_edits_while_a_refresh_waits_share_it(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    knowledge, identity = completed(ctx, embeddings, chat)
    with ChatServer(answer=summary_answer, delay_s=1.5) as slow:
        busy, _ = completed(ctx, embeddings, slow)
        # The summary queue's one worker is busy with another knowledge's slow refresh.
        SummaryRefreshService(ctx).regenerate(Identity(busy.tenant_id, False), busy.id)
        wait_for_requests(slow, 2)
        chunk = text_chunk(ctx, knowledge)
        edits = ChunkEditService(ctx)
        edits.update_content(identity, chunk.id, chunk.content.replace(OLD_FACT, NEW_FACT))
        edits.update_content(identity, chunk.id, chunk.content.replace(OLD_FACT, NEWEST_FACT))
        assert reread(ctx, knowledge.id).summary_status == SummaryStatus.PENDING
        join(ctx)

    after = reread(ctx, knowledge.id)
    assert NEWEST_FACT in (after.summary or "") and after.summary_status == SummaryStatus.COMPLETED
    assert len(chat.log()) == 2  # both edits: one refresh


def test_a_refresh_raced_by_an_edit_keeps_the_newer_summary(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    knowledge, identity = completed(ctx, embeddings, chat)
    chunk = text_chunk(ctx, knowledge)
    edits = ChunkEditService(ctx)
    chat.delay_s = 1.0

    edits.update_content(identity, chunk.id, chunk.content.replace(OLD_FACT, NEW_FACT))
    wait_for_requests(chat, 2)  # the refresh of NEW_FACT is at the model
    edits.update_content(identity, chunk.id, chunk.content.replace(OLD_FACT, NEWEST_FACT))
    wait_for_requests(chat, 3)  # the raced refresh has ended, the newer one is at the model
    meanwhile = reread(ctx, knowledge.id)
    # The raced refresh's answer (of NEW_FACT) was dropped: nothing written, still open.
    assert (meanwhile.summary_status, meanwhile.summary_stale) == (SummaryStatus.PROCESSING, True)
    assert OLD_FACT in (meanwhile.summary or "")
    join(ctx)

    calls = chat.log()
    assert NEW_FACT in calls[1].texts[-1] and NEWEST_FACT in calls[2].texts[-1]
    assert len(calls) == 3
    after = reread(ctx, knowledge.id)
    assert (after.summary_status, after.summary_stale) == (SummaryStatus.COMPLETED, False)
    assert NEWEST_FACT in (after.summary or "") and NEW_FACT not in (after.summary or "")
    assert summary_chunk(ctx, after).content == after.summary


def test_a_database_error_is_tried_again_and_a_deleted_knowledge_is_a_no_op(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer, database_url: str
) -> None:
    if database_url.startswith("sqlite"):
        pytest.skip("renaming a table under a running task needs PostgreSQL's locking")
    knowledge, _ = completed(ctx, embeddings, chat)
    request = ctx.edits.request_summary_refresh(knowledge.id, None)
    assert request is not None and request.sequence is not None
    payload = SummaryRefreshPayload(
        knowledge.tenant_id, knowledge.id, knowledge.knowledge_base_id, request.sequence
    )
    chat.delay_s = 1.0
    # The chunks table is gone while the model answers: the guarded write's read fails.
    ctx.queue.enqueue(replace(task_specs.summary_refresh(payload), retry_intervals=(2,)))
    wait_for_requests(chat, 2)
    with ctx.db.session() as session:
        session.execute(text("ALTER TABLE chunks RENAME TO chunks_away"))
    time.sleep(1.5)
    with ctx.db.session() as session:
        session.execute(text("ALTER TABLE chunks_away RENAME TO chunks"))
    join(ctx)
    after = reread(ctx, knowledge.id)
    assert len(chat.log()) == 3  # tried again, not dropped as stale
    assert (after.summary_status, after.summary_error) == (SummaryStatus.COMPLETED, None)

    gone, identity = completed(ctx, embeddings, chat)
    calls = len(chat.log()) + 1
    SummaryRefreshService(ctx).regenerate(identity, gone.id)
    wait_for_requests(chat, calls)
    ctx.knowledges.mark_deleting([gone.id])
    join(ctx)
    assert len(chat.log()) == calls  # no retry: there is nothing left to write
    assert OLD_FACT in (reread(ctx, gone.id).summary or "")


def test_regenerate_summary_statuses(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    service = SummaryRefreshService(ctx)
    knowledge, identity = completed(ctx, embeddings, chat)
    with pytest.raises(NotFound):
        service.regenerate(identity, str(uuid.uuid4()))
    with pytest.raises(NotFound):  # another tenant's
        service.regenerate(Identity("someone-else", False), knowledge.id)
    bare, bare_identity = completed(ctx, embeddings, None)
    with pytest.raises(FailedPrecondition) as no_model:
        service.regenerate(bare_identity, bare.id)
    assert no_model.value.kind == "NO_SUMMARY_MODEL"

    queued = service.regenerate(identity, knowledge.id)
    assert queued.row.summary_status == SummaryStatus.PENDING
    join(ctx)
    assert len(chat.log()) == 2 and reread(ctx, knowledge.id).summary_status == "completed"

    with ctx.db.session() as session:
        session.get(Knowledge, knowledge.id).parse_status = ParseStatus.FINALIZING  # type: ignore[union-attr]
    with pytest.raises(FailedPrecondition) as busy:
        service.regenerate(identity, knowledge.id)
    assert busy.value.kind == "KNOWLEDGE_NOT_COMPLETED"


def test_a_failed_refresh_keeps_the_old_summary_and_says_why(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    refusing = threading.Event()
    with ChatServer(
        answer=summary_answer, fail=lambda n: 401 if refusing.is_set() else None
    ) as chat:
        knowledge, identity = completed(ctx, embeddings, chat)
        refusing.set()
        chunk = text_chunk(ctx, knowledge)
        ChunkEditService(ctx).update_content(
            identity, chunk.id, chunk.content.replace(OLD_FACT, NEW_FACT)
        )
        join(ctx)
    after = reread(ctx, knowledge.id)
    assert (after.summary_status, after.summary_stale) == (SummaryStatus.FAILED, True)
    assert OLD_FACT in (after.summary or "") and after.summary_error
    assert len(chat.log()) == 2  # refused: not tried again


def test_enabling_a_text_chunk_cascades_and_new_content_drops_its_questions(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    knowledge, identity = completed(ctx, embeddings, chat)
    parent = text_chunk(ctx, knowledge)
    children = [
        NewChunk(
            knowledge.tenant_id,
            knowledge.knowledge_base_id,
            knowledge.id,
            index,
            content,
            chunk_type=chunk_type,
            attempt=knowledge.attempt,
            parent_chunk_id=parent.id,
        )
        for index, (chunk_type, content) in enumerate(
            [
                (ChunkType.IMAGE_OCR, "Tide gauge reads ninety centimetres."),
                (ChunkType.QUESTION, "How many ships pass the lighthouse?"),
            ]
        )
    ]
    ctx.chunks.insert_many(children)
    kb = ctx.knowledge_bases.get(None, knowledge.knowledge_base_id)
    assert kb is not None
    model = resolve(kb.config or {}, None).embedding
    ChunkIndexer(ctx.embedders, ctx.index, 8).index_chunks(
        knowledge, kb.embedding_model_key, model, children, check=lambda: None
    )
    ocr, question = (c.id for c in children)
    edits = ChunkEditService(ctx)

    edits.set_enabled(identity, parent.id, False)
    stored = {c.id: c.is_enabled for c in ctx.chunks.get_many([ocr, question], tenant_id=None)}
    assert stored == {ocr: False, question: False}
    assert found(ctx, knowledge, "tide gauge ninety") == set()
    assert found(ctx, knowledge, "ships pass lighthouse") & {ocr, question} == set()

    edits.set_enabled(identity, parent.id, True)
    assert ocr in found(ctx, knowledge, "tide gauge ninety")
    assert question in found(ctx, knowledge, "ships pass lighthouse")

    edits.update_content(identity, parent.id, parent.content.replace(OLD_FACT, NEW_FACT))
    assert [c.id for c in ctx.chunks.get_many([ocr, question], tenant_id=None)] == [ocr]
    assert question not in ctx.index.ids_for_knowledge(kb.embedding_model_key, knowledge.id)
    join(ctx)


def test_a_reparse_ends_an_open_refresh_and_writes_its_own_summary(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    knowledge, _ = completed(ctx, embeddings, chat)
    request = ctx.edits.request_summary_refresh(knowledge.id, None)
    assert request is not None and request.sequence is not None
    # A refresh taken by a worker that died: processing, its task gone.
    assert ctx.summary_refreshes.begin(knowledge.id, request.sequence) is not None

    restart = restart_processing(ctx, reread(ctx, knowledge.id))
    join(ctx)

    assert restart.outcome == RestartOutcome.RESTARTED
    after = reread(ctx, knowledge.id)
    assert (after.attempt, after.parse_status, after.summary_status) == (
        2,
        ParseStatus.COMPLETED,
        SummaryStatus.COMPLETED,
    )
    assert OLD_FACT in (after.summary or "") and summary_chunk(ctx, after).attempt == 2
