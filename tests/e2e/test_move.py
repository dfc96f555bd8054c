"""MoveKnowledge end to end over gRPC, in lite and full mode: reuse_vectors moves the
index rows without asking the embedding model anything (the test's embedding server counts
every request) and the target finds the knowledge while the source no longer does; reparse
ends completed in the target; the refusals (FAILED_PRECONDITION naming what differs, and
an FAQ knowledge base's own knowledge) and
the progress, read and watched."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sluice_client import FailedPrecondition, SluiceClient
from sluice_client._faq_entries import faq_content
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer

ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
TEXT = "\n\n".join(
    [
        "The heron ledger lists every lock keeper of the canal.",
        "Spare part HX-4410 waits in the blue cabinet.",
    ]
)
QUERY = "heron ledger lock keeper"


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp(f"move-{request.param}")
    if request.param == "lite":
        with lite_stack(data_dir, extra_env=ENV) as running:
            yield running
    else:
        with full_stack(data_dir, extra_env=ENV) as running:
            yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


def _config(
    server: EmbeddingServer, *, vector: bool = True, model: str = ""
) -> v1.KnowledgeBaseConfig:
    return v1.KnowledgeBaseConfig(
        chunking=v1.ChunkingConfig(chunk_size=80, chunk_overlap=0),
        indexing=v1.IndexingStrategy(vector_enabled=vector, keyword_enabled=True),
        embedding=v1.ModelConfig(
            provider="openai",
            model=model or server.model,
            base_url=server.url("/v1"),
            dimensions=DIMENSION,
        ),
    )


def _kb(
    client: SluiceClient,
    config: v1.KnowledgeBaseConfig,
    kb_type: v1.KnowledgeBaseType = v1.KnowledgeBaseType.DOCUMENT,
) -> str:
    name = f"move-{uuid.uuid4().hex[:8]}"
    return client.create_knowledge_base(name, config=config, kb_type=kb_type).id


def _ingested(client: SluiceClient, kb_id: str) -> str:
    created = client.create_manual(kb_id, "heron.md", TEXT)
    done = client.wait_until_done(created.id, WAIT_S)
    assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
    return created.id


def _ended(client: SluiceClient, job_id: str) -> v1.MoveProgress:
    last = v1.MoveProgress()
    for progress in client.watch_move_progress(job_id, timeout=WAIT_S):
        last = progress
    assert last.status in (v1.JobStatus.COMPLETED, v1.JobStatus.FAILED)
    return last


def _found(client: SluiceClient, kb_id: str, knowledge_id: str) -> dict[str, float]:
    hits = client.search(QUERY, [kb_id], top_k=20, mode=v1.SearchMode.VECTOR)
    return {h.chunk_id: h.score for h in hits if h.knowledge_id == knowledge_id}


def test_reuse_vectors_moves_the_rows_without_embedding(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    source, target = _kb(client, _config(server)), _kb(client, _config(server))
    knowledge_id = _ingested(client, source)
    before = _found(client, source, knowledge_id)
    assert before
    requests = len(server.requests)
    accepted = client.move_knowledge([knowledge_id], target, v1.MoveMode.REUSE_VECTORS)
    assert accepted.mode == v1.MoveMode.REUSE_VECTORS
    progress = _ended(client, accepted.job_id)
    assert (progress.status, progress.total, progress.done, progress.failed) == (
        v1.JobStatus.COMPLETED,
        1,
        1,
        0,
    )
    assert len(server.requests) == requests  # the move embedded nothing
    moved = client.get_knowledge(knowledge_id)
    assert moved.knowledge_base_id == target
    assert moved.parse_status == v1.ParseStatus.COMPLETED
    # The same vectors: the same chunks, each with the score it had in the source.
    after = _found(client, target, knowledge_id)
    assert after.keys() == before.keys()
    assert all(after[c] == pytest.approx(before[c], abs=1e-5) for c in before)
    assert _found(client, source, knowledge_id) == {}
    assert client.get_move_progress(accepted.job_id) == progress


def test_reparse_processes_it_again_in_the_target(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    source, target = _kb(client, _config(server)), _kb(client, _config(server))
    knowledge_id = _ingested(client, source)
    accepted = client.move_knowledge([knowledge_id], target, v1.MoveMode.REPARSE)
    assert accepted.mode == v1.MoveMode.REPARSE
    assert _ended(client, accepted.job_id).status == v1.JobStatus.COMPLETED
    done = client.wait_until_done(knowledge_id, WAIT_S)
    assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
    assert done.knowledge_base_id == target
    assert done.attempt == 2  # a new round, in the target
    assert _found(client, target, knowledge_id)
    assert _found(client, source, knowledge_id) == {}


def test_unspecified_mode_reparses_where_the_index_differs(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    source = _kb(client, _config(server))
    keyword_only = _kb(client, _config(server, vector=False))
    knowledge_id = _ingested(client, source)
    with pytest.raises(FailedPrecondition) as refused:
        client.move_knowledge([knowledge_id], keyword_only, v1.MoveMode.REUSE_VECTORS)
    assert "VECTOR_STORE_NOT_SHARED" in str(refused.value.details)
    accepted = client.move_knowledge([knowledge_id], keyword_only)
    assert accepted.mode == v1.MoveMode.REPARSE
    assert _ended(client, accepted.job_id).status == v1.JobStatus.COMPLETED
    done = client.wait_until_done(knowledge_id, WAIT_S)
    assert (done.knowledge_base_id, done.parse_status) == (
        keyword_only,
        v1.ParseStatus.COMPLETED,
    )


def test_refusals_name_what_differs(client: SluiceClient, server: EmbeddingServer) -> None:
    source = _kb(client, _config(server))
    knowledge_id = _ingested(client, source)
    other_model = _kb(client, _config(server, model="another-model"))
    with pytest.raises(FailedPrecondition) as refused:
        client.move_knowledge([knowledge_id], other_model)
    assert "EMBEDDING_MODEL_MISMATCH" in str(refused.value.details)
    assert "another-model" in refused.value.message
    faq = _kb(client, _config(server), v1.KnowledgeBaseType.FAQ)
    with pytest.raises(FailedPrecondition) as refused:
        client.move_knowledge([knowledge_id], faq)
    assert "KB_TYPE_MISMATCH" in str(refused.value.details)
    assert client.get_knowledge(knowledge_id).knowledge_base_id == source

    # An FAQ knowledge base's one knowledge holds its entries: it is cloned, never moved.
    other_faq = _kb(client, _config(server), v1.KnowledgeBaseType.FAQ)
    entry = client.create_faq_entry(faq, faq_content("Where is HX-4410?", ["Blue cabinet."]))
    with pytest.raises(FailedPrecondition) as refused:
        client.move_knowledge([entry.knowledge_id], other_faq)
    assert "KNOWLEDGE_BASE_IS_FAQ" in str(refused.value.details)
    assert "clone the knowledge base" in refused.value.message
    assert client.get_knowledge(entry.knowledge_id).knowledge_base_id == faq
    assert [e.id for e in client.list_faq_entries(faq)] == [entry.id]
