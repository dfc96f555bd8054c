"""A round that fails part-way resumes on its next try: real parts throughout — a migrated
PostgreSQL (and SQLite, lite mode's database), milvus-lite, the lite queue with its real
retries, and a real OpenAI-compatible HTTP embedding server that fails on plan and counts
every batch it is asked to embed."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from storage.db.models import Knowledge
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_embeddings import EmbeddingServer, vector
from tests.support.worker_context import local_settings, worker_context
from workers import task_specs
from workers.context import WorkerContext
from workers.lifecycle.enqueue import document_process_payload
from workers.lifecycle.reparse import restart_processing
from workers.pipeline.chunks.indexing import chunk_row
from workers.pipeline.round.cleanup import remove_round_products
from workers.settings_groups import ModelSettings, OutboundSettings, QueueSettings

BATCH = 4
PARAGRAPHS = 14  # 14 chunks: batches of 4, 4, 4 and 2
CHUNKING = {"chunk_size": 100, "chunk_overlap": 0}
# OpenAIEmbedder's own retries: 1 try + 4 retries of each request.
TRIES_PER_REQUEST = 5


@pytest.fixture(scope="module")
def ctx(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerContext]:
    data_dir = tmp_path_factory.mktemp("resume")
    settings = local_settings(
        database_url,
        data_dir,
        models=ModelSettings(embed_batch_size=BATCH),
        queue=QueueSettings(document_process_retries=1, document_process_retry_delays_s=(0,)),
        # The embedding endpoints these tests start listen on 127.0.0.1.
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
    )
    with worker_context(settings, install=True) as context:
        yield context


def paragraphs(tag: str = "") -> str:
    return "\n\n".join(
        f"Paragraph {i}{tag} of the resume test, long enough to be a chunk on its own here."
        for i in range(PARAGRAPHS)
    )


def manual_knowledge(ctx: WorkerContext, server: EmbeddingServer, markdown: str) -> Knowledge:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    kb = ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={"chunking": CHUNKING, "embedding": server.kb_config()},
        embedding_model_key=server.model_key,
        storage_backend_id="",
    )
    return ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="manual",
        title="resume.md",
        content=markdown,
        parse_status="pending",
        enable_status="disabled",
        attempt=1,
    )


def process(ctx: WorkerContext, row: Knowledge, attempt: int = 1) -> Knowledge:
    """Queue round ``attempt`` as the API does and wait until the queue is idle."""
    ctx.queue.enqueue(
        task_specs.document_process(ctx.settings, document_process_payload(row, attempt))
    )
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)
    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None
    return fresh


def failing(numbers: range) -> Callable[[int], int | None]:
    return lambda n: 503 if n in numbers else None


def texts(ctx: WorkerContext, knowledge_id: str) -> list[Any]:
    rows, _ = ctx.chunks.list_by_knowledge(knowledge_id, limit=1000, tenant_id=None)
    return [c for c in rows if c.chunk_type == "text"]


def spans_of(ctx: WorkerContext, knowledge_id: str, attempt: int = 1) -> dict[str, Any]:
    return {span.name: span for span in ctx.spans.list(knowledge_id, attempt, tenant_id=None)}


def embedding_inputs(chunks: list[Any], title: str = "resume.md") -> list[str]:
    return [f"{title}\n{c.content}" for c in chunks]


def assert_indexed_once(ctx: WorkerContext, server: EmbeddingServer, row: Knowledge) -> None:
    chunks = texts(ctx, row.id)
    assert len(chunks) == PARAGRAPHS
    assert {c.attempt for c in chunks} == {row.attempt}
    ids = ctx.index.ids_for_knowledge(server.model_key, row.id)
    assert sorted(ids) == sorted(c.id for c in chunks), "one index row per chunk, no strays"


def test_a_try_that_fails_on_a_batch_is_resumed_from_that_batch(
    ctx: WorkerContext,
) -> None:
    # Requests 1-2 embed batches 1-2; batch 3 then fails all 5 tries of its request, which
    # fails the queue's first try; the second try must ask only for batches 3 and 4.
    with EmbeddingServer(failing(range(3, 3 + TRIES_PER_REQUEST))) as server:
        row = manual_knowledge(ctx, server, paragraphs())
        done = process(ctx, row)

        assert (done.parse_status, done.enable_status) == ("completed", "enabled")
        chunks = texts(ctx, row.id)
        expected = embedding_inputs(chunks)
        assert server.embedded() == expected, "every chunk embedded exactly once, in order"
        log = server.log()
        assert [len(r.inputs) for r in log if r.status == 200] == [4, 4, 4, 2]
        assert len(log) == 4 + TRIES_PER_REQUEST
        # The failed request's batch is the one the second try starts with.
        assert log[TRIES_PER_REQUEST + 2].inputs == log[2].inputs
        assert_indexed_once(ctx, server, done)

        spans = spans_of(ctx, row.id)
        assert spans["knowledge_processing"].status == "done"
        assert spans["knowledge_processing"].input["queue_try"] == 2
        assert spans["chunking"].output["chunks_kept"] == PARAGRAPHS
        assert spans["embedding"].output["chunks_resumed"] == 2 * BATCH
        assert spans["embedding"].output["chunks_indexed"] == PARAGRAPHS
        failed_try = spans["retry.1"]
        assert (failed_try.kind, failed_try.status, failed_try.stage) == (
            "step",
            "failed",
            "embedding",
        )
        assert failed_try.error_code == "EMBEDDING_FAILED"
        assert "HTTP 503" in (failed_try.error_message or "")
        assert failed_try.parent_id == spans["knowledge_processing"].id
        # Inside the first try, each failed request try is a step under the embedding stage.
        inner = [spans[f"embedding.retry.1.{n}"] for n in range(1, TRIES_PER_REQUEST)]
        assert [s.input["try"] for s in inner] == [1, 2, 3, 4]
        assert all(s.input["max_tries"] == TRIES_PER_REQUEST for s in inner)
        assert all(s.parent_id == spans["embedding"].id for s in inner)
        assert all("HTTP 503" in (s.error_message or "") for s in inner)
        checkpoint = ctx.index_checkpoints.get(row.id)
        assert checkpoint is not None
        assert (checkpoint.attempt, checkpoint.indexed_count) == (1, PARAGRAPHS)


def test_a_flaky_request_shows_its_failed_try_and_the_round_goes_on(
    ctx: WorkerContext,
) -> None:
    with EmbeddingServer(failing(range(2, 3))) as server:
        row = manual_knowledge(ctx, server, paragraphs())
        done = process(ctx, row)

        assert done.parse_status == "completed"
        spans = spans_of(ctx, row.id)
        assert spans["knowledge_processing"].input["queue_try"] == 1
        assert "retry.1" not in spans, "the queue did not have to try again"
        retry = spans["embedding.retry.1.1"]
        assert (retry.kind, retry.stage, retry.status, retry.error_code) == (
            "step",
            "embedding",
            "failed",
            "RETRIED",
        )
        assert retry.input["try"] == 1
        assert retry.input["operation"] == f"POST {server.url('/v1/embeddings')}"
        assert retry.error_message.startswith("HTTP 503")
        assert [n for n in spans if ".retry." in n] == ["embedding.retry.1.1"]
        # The failed batch was asked again, nothing else twice.
        assert len(server.log()) == 4 + 1
        assert server.embedded() == embedding_inputs(texts(ctx, row.id))


def test_a_request_the_provider_refuses_fails_the_round_without_retrying(
    ctx: WorkerContext,
) -> None:
    # Batch 1 is embedded, then the endpoint answers 401 (its key revoked): the same request
    # would be refused on every try, so neither the client nor the queue tries it again.
    with EmbeddingServer(lambda n: 401 if n >= 2 else None) as server:
        row = manual_knowledge(ctx, server, paragraphs())
        done = process(ctx, row)

        assert done.parse_status == "failed"
        assert "HTTP 401" in (done.error_message or "")
        assert [r.status for r in server.log()] == [200, 401]
        spans = spans_of(ctx, row.id)
        assert "retry.1" not in spans, "the queue did not try again"
        assert spans["knowledge_processing"].status == "failed"
        assert spans["embedding"].error_code == "EMBEDDING_FAILED"


def test_a_retry_after_the_configuration_changed_starts_over(ctx: WorkerContext) -> None:
    # The first try fails on batch 3; before its retry the chunking changes: another parse.
    with EmbeddingServer(failing(range(3, 3 + TRIES_PER_REQUEST))) as server:
        row = manual_knowledge(ctx, server, paragraphs())
        kb = ctx.knowledge_bases.get(None, row.knowledge_base_id)
        assert kb is not None
        spec = task_specs.document_process(ctx.settings, document_process_payload(row, 1))
        ctx.queue.enqueue(replace(spec, retry_intervals=(3,)))
        _wait_for(lambda: "retry.1" in spans_of(ctx, row.id), 60)
        first_ids = {c.id for c in texts(ctx, row.id)}
        assert len(ctx.index.ids_for_knowledge(server.model_key, row.id)) == 2 * BATCH
        bigger = {"chunk_size": 200, "chunk_overlap": 0}
        ctx.knowledge_bases.update(None, kb.id, config={**kb.config, "chunking": bigger})
        assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)

        done = ctx.knowledges.get(row.id, None)
        assert done is not None and done.parse_status == "completed"
        chunks = texts(ctx, row.id)
        assert len(chunks) < PARAGRAPHS, "bigger chunks: fewer of them"
        # Same round, same ids by position, but every new chunk was embedded afresh.
        assert server.embedded()[2 * BATCH :] == embedding_inputs(chunks)
        ids = ctx.index.ids_for_knowledge(server.model_key, row.id)
        assert sorted(ids) == sorted(c.id for c in chunks)
        assert not (first_ids - {c.id for c in chunks}) & set(ids), "no stray index rows"
        spans = spans_of(ctx, row.id)
        assert "chunks_kept" not in spans["chunking"].output
        assert "chunks_resumed" not in spans["embedding"].input


def test_a_reparse_starts_over(ctx: WorkerContext) -> None:
    with EmbeddingServer() as server:
        row = manual_knowledge(ctx, server, paragraphs())
        first = process(ctx, row)
        assert first.parse_status == "completed"
        before = {c.id for c in texts(ctx, row.id)}

        restart = restart_processing(ctx, first)
        assert restart.row is not None and restart.row.attempt == 2
        assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)

        done = ctx.knowledges.get(row.id, None)
        assert done is not None and (done.parse_status, done.attempt) == ("completed", 2)
        assert len(server.embedded()) == 2 * PARAGRAPHS, "the new round embedded everything"
        assert_indexed_once(ctx, server, done)
        assert not before & {c.id for c in texts(ctx, row.id)}


def test_a_batch_the_old_round_indexed_after_the_reparse_removed_it_goes_too(
    ctx: WorkerContext,
) -> None:
    # The reparse removes round 1's products, then the old task's embedding batch it was
    # writing lands (its chunk rows are gone by then), and only then does the new attempt
    # open: the old task, stopped before that, counted as current and kept its rows.
    with EmbeddingServer() as server:
        row = manual_knowledge(ctx, server, paragraphs())
        first = process(ctx, row)
        old = texts(ctx, row.id)
        remove_round_products(ctx, row.id, 1, server.model_key, and_older=True)
        late = [
            chunk_row(first, c, text, vector(text))
            for c, text in zip(old[:BATCH], embedding_inputs(old[:BATCH]), strict=True)
        ]
        ctx.index.upsert(server.model_key, late)
        assert len(ctx.index.ids_for_knowledge(server.model_key, row.id)) == BATCH

        restart = restart_processing(ctx, first)
        assert restart.row is not None and restart.row.attempt == 2
        assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=120)

        done = ctx.knowledges.get(row.id, None)
        assert done is not None and (done.parse_status, done.attempt) == ("completed", 2)
        assert_indexed_once(ctx, server, done)


def _wait_for(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)
