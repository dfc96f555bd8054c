"""Parent/child chunking through a real round: a migrated PostgreSQL (and SQLite), milvus-lite,
the lite queue and a real OpenAI-compatible HTTP embedding server. Parents are stored and
linked but never embedded; every child is embedded once, points to the parent whose range
holds it, and a round that takes over an older one's parse keeps the parents its children
point to."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import update

from core.statuses import ChunkType, ParseStatus
from storage.db.models import Knowledge
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.worker_context import local_settings, worker_context
from workers import task_specs
from workers.context import WorkerContext
from workers.lifecycle.enqueue import document_process_payload
from workers.settings_groups import ModelSettings, OutboundSettings

SECTIONS = 6
PARENT_CHILD = {
    "chunk_size": 100,
    "chunk_overlap": 0,
    "enable_parent_child": True,
    "parent_chunk_size": 400,
}


@pytest.fixture(scope="module")
def ctx(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerContext]:
    data_dir = tmp_path_factory.mktemp("parent-child")
    settings = local_settings(
        database_url,
        data_dir,
        models=ModelSettings(embed_batch_size=4),
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
    )
    with worker_context(settings, install=True) as context:
        yield context


def document() -> str:
    return "\n\n".join(
        f"## Section {s}\n\n"
        + "\n\n".join(
            f"Sentence {p} of section {s}, long enough that two of them fill a child."
            for p in range(4)
        )
        for s in range(SECTIONS)
    )


def processed(ctx: WorkerContext, server: EmbeddingServer, chunking: dict[str, Any]) -> Knowledge:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    kb = ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={"chunking": chunking, "embedding": server.kb_config()},
        embedding_model_key=server.model_key,
        storage_backend_id="",
    )
    row = ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="manual",
        title="pc.md",
        content=document(),
        parse_status="pending",
        enable_status="disabled",
        attempt=1,
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, document_process_payload(row, 1)))
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)
    done = ctx.knowledges.get(row.id, None)
    assert done is not None and done.parse_status == ParseStatus.COMPLETED
    return done


def chunks_of(ctx: WorkerContext, knowledge_id: str, chunk_type: str) -> list[Any]:
    rows, _ = ctx.chunks.list_by_knowledge(knowledge_id, limit=1000, tenant_id=None)
    return sorted((c for c in rows if c.chunk_type == chunk_type), key=lambda c: c.chunk_index)


def test_parents_are_stored_and_linked_and_only_children_are_embedded(
    ctx: WorkerContext,
) -> None:
    with EmbeddingServer() as server:
        done = processed(ctx, server, PARENT_CHILD)
        parents = chunks_of(ctx, done.id, ChunkType.PARENT_TEXT)
        children = chunks_of(ctx, done.id, ChunkType.TEXT)

        assert 1 < len(parents) < len(children)
        assert all(len(p.content) <= 400 for p in parents)
        assert all(len(c.content) <= 100 for c in children)
        # Parents in order, linked both ways, without parents of their own.
        assert [p.pre_chunk_id for p in parents] == [None, *(p.id for p in parents[:-1])]
        assert [p.next_chunk_id for p in parents] == [*(p.id for p in parents[1:]), None]
        assert all(p.parent_chunk_id is None for p in parents)
        by_id = {p.id: p for p in parents}
        for child in children:
            parent = by_id[child.parent_chunk_id]
            assert parent.start_at <= child.start_at < child.end_at <= parent.end_at
            assert child.content in parent.content
        # Every parent has children; the index holds the children and nothing else.
        assert {c.parent_chunk_id for c in children} == set(by_id)
        indexed = ctx.index.ids_for_knowledge(server.model_key, done.id)
        assert sorted(indexed) == sorted(c.id for c in children)
        embedded = server.embedded()
        assert len(embedded) == len(children), "each child embedded once, no parent"
        assert all(text.endswith(c.content) for text, c in zip(embedded, children, strict=True))
        chunking = {s.name: s for s in ctx.spans.list(done.id, 1, tenant_id=None)}["chunking"]
        output = chunking.output or {}
        assert (output["parent_chunks"], output["chunks_written"]) == (len(parents), len(children))


def test_off_no_parent_is_written(ctx: WorkerContext) -> None:
    with EmbeddingServer() as server:
        done = processed(ctx, server, {"chunk_size": 100, "chunk_overlap": 0})
        assert chunks_of(ctx, done.id, ChunkType.PARENT_TEXT) == []
        assert all(c.parent_chunk_id is None for c in chunks_of(ctx, done.id, ChunkType.TEXT))


def test_a_round_taking_over_the_parse_keeps_the_parents_of_its_children(
    ctx: WorkerContext,
) -> None:
    with EmbeddingServer() as server:
        done = processed(ctx, server, PARENT_CHILD)
        checkpoint = ctx.index_checkpoints.get(done.id)
        assert checkpoint is not None
        children = chunks_of(ctx, done.id, ChunkType.TEXT)
        # Round 2 of the same parse (a requeued round) starts: it takes round 1's over.
        with ctx.db.session() as session:
            session.execute(
                update(Knowledge)
                .where(Knowledge.id == done.id)
                .values(attempt=2, parse_status=ParseStatus.PROCESSING)
            )
        point = ctx.index_checkpoints.resume(
            done.id, 2, checkpoint.fingerprint, checkpoint.chunk_count
        )

        assert point is not None and point.from_attempt == 1
        assert list(point.chunk_ids) == [c.id for c in children]
        parents = chunks_of(ctx, done.id, ChunkType.PARENT_TEXT)
        assert parents and {p.attempt for p in parents} == {2}
        assert {c.attempt for c in chunks_of(ctx, done.id, ChunkType.TEXT)} == {2}
        assert {c.parent_chunk_id for c in children} == {p.id for p in parents}
