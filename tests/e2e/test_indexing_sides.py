"""IndexingStrategy's vector and keyword switches over the real API (lite mode): each of the
four combinations ingests, and Search answers what the knowledge base indexes (hybrid, the
default, on the side it has; FAILED_PRECONDITION for a side it does not index or when it
indexes nothing). The embedding server counts every request, so "the model is not called"
is what it saw."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import grpc
import pytest
from sluice_client import FailedPrecondition, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S
from tests.e2e.stacks import Stack, lite_stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer

ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
TEXT = "\n\n".join(
    [
        "The sluice gate calibration log records every adjustment.",
        "Spare part QX-7731 is kept in drawer four.",
        "Tide tables are printed each Monday.",
    ]
)
MODES = (v1.SearchMode.HYBRID, v1.SearchMode.VECTOR, v1.SearchMode.KEYWORD)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with lite_stack(tmp_path_factory.mktemp("indexing-sides"), extra_env=ENV) as running:
        yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


def _kb(client: SluiceClient, server: EmbeddingServer, vector: bool, keyword: bool) -> str:
    config = v1.KnowledgeBaseConfig(
        chunking=v1.ChunkingConfig(chunk_size=80, chunk_overlap=0),
        indexing=v1.IndexingStrategy(vector_enabled=vector, keyword_enabled=keyword),
        embedding=v1.ModelConfig(
            provider="openai",
            model=server.model,
            base_url=server.url("/v1"),
            dimensions=DIMENSION,
        ),
    )
    return client.create_knowledge_base(f"sides-{uuid.uuid4().hex[:8]}", config=config).id


def _ingested(client: SluiceClient, kb_id: str) -> tuple[str, set[str]]:
    created = client.create_manual(kb_id, "gates.md", TEXT)
    done = client.wait_until_done(created.id, WAIT_S)
    assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
    chunks = {c.id for c in client.list_chunks(created.id)}
    assert len(chunks) >= 2
    return created.id, chunks


def _found(client: SluiceClient, kb_id: str, query: str, mode: v1.SearchMode) -> list[str]:
    return [h.chunk_id for h in client.search(query, [kb_id], top_k=10, mode=mode)]


def _refused(client: SluiceClient, kb_ids: list[str], mode: v1.SearchMode) -> str:
    with pytest.raises(FailedPrecondition) as refused:
        client.search("calibration", kb_ids, mode=mode)
    assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
    return refused.value.message


def test_both_sides_index_and_answer_every_mode(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    kb_id = _kb(client, server, vector=True, keyword=True)
    _, chunks = _ingested(client, kb_id)
    assert len(server.embedded()) >= len(chunks)  # the model embedded the chunks
    for mode in MODES:
        assert set(_found(client, kb_id, "calibration", mode)) <= chunks
        assert _found(client, kb_id, "calibration", mode), mode


def test_a_keyword_only_knowledge_base_never_calls_the_model(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    kb_id = _kb(client, server, vector=False, keyword=True)
    _, chunks = _ingested(client, kb_id)
    hybrid = _found(client, kb_id, "QX-7731", v1.SearchMode.HYBRID)
    keyword = _found(client, kb_id, "QX-7731", v1.SearchMode.KEYWORD)
    assert hybrid == keyword and len(hybrid) == 1 and hybrid[0] in chunks
    message = _refused(client, [kb_id], v1.SearchMode.VECTOR)
    assert "no vector index" in message and kb_id in message
    # Neither ingestion nor search asked the embedding endpoint anything.
    assert server.log() == []


def test_a_dense_only_knowledge_base_has_no_keyword_side(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    kb_id = _kb(client, server, vector=True, keyword=False)
    _, chunks = _ingested(client, kb_id)
    assert len(server.embedded()) >= len(chunks)
    vector = _found(client, kb_id, "QX-7731", v1.SearchMode.VECTOR)
    assert set(vector) == chunks  # every row is a vector row
    # Hybrid is the dense ranking alone.
    assert _found(client, kb_id, "QX-7731", v1.SearchMode.HYBRID) == vector
    message = _refused(client, [kb_id], v1.SearchMode.KEYWORD)
    assert "no keyword index" in message and "keyword_enabled" in message


def test_with_both_sides_off_documents_complete_unindexed(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    kb_id = _kb(client, server, vector=False, keyword=False)
    knowledge_id, _ = _ingested(client, kb_id)
    assert {c.is_enabled for c in client.list_chunks(knowledge_id)} == {True}
    for mode in MODES:
        assert "indexes neither" in _refused(client, [kb_id], mode)
    # Several knowledge bases: one that indexes nothing makes the search refused, not partial.
    other = _kb(client, server, vector=False, keyword=True)
    assert kb_id in _refused(client, [other, kb_id], v1.SearchMode.HYBRID)
    assert server.log() == []


def test_the_switches_change_only_while_the_knowledge_base_is_empty(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    kb_id = _kb(client, server, vector=True, keyword=True)
    keyword_only = v1.KnowledgeBaseConfig(
        chunking=v1.ChunkingConfig(chunk_size=80, chunk_overlap=0),
        indexing=v1.IndexingStrategy(vector_enabled=False, keyword_enabled=True),
        embedding=v1.ModelConfig(
            provider="openai",
            model=server.model,
            base_url=server.url("/v1"),
            dimensions=DIMENSION,
        ),
    )
    client.update_knowledge_base(kb_id, config=keyword_only)
    _ingested(client, kb_id)
    assert server.log() == []  # the change took: ingested keyword-only
    both = v1.KnowledgeBaseConfig(
        indexing=v1.IndexingStrategy(vector_enabled=True, keyword_enabled=True, wiki_enabled=True),
        embedding=keyword_only.embedding,
    )
    with pytest.raises(FailedPrecondition) as refused:
        client.update_knowledge_base(kb_id, config=both)
    assert "cannot change while the knowledge base holds documents" in refused.value.message
    # wiki/graph switches may change at any time.
    keyword_only.indexing = v1.IndexingStrategy(keyword_enabled=True, wiki_enabled=True)
    updated = client.update_knowledge_base(kb_id, config=keyword_only)
    indexing = updated.config.indexing if updated.config is not None else None
    assert indexing is not None and indexing.wiki_enabled


def test_several_knowledge_bases_are_each_searched_on_their_own_side(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    keyword_kb = _kb(client, server, vector=False, keyword=True)
    dense_kb = _kb(client, server, vector=True, keyword=False)
    _, keyword_chunks = _ingested(client, keyword_kb)
    _, dense_chunks = _ingested(client, dense_kb)
    hits = client.search("QX-7731 drawer", [keyword_kb, dense_kb], top_k=20)
    found = {h.chunk_id for h in hits}
    assert found & keyword_chunks and found & dense_chunks
    # An explicit mode needs every named knowledge base to index its side.
    message = _refused(client, [keyword_kb, dense_kb], v1.SearchMode.KEYWORD)
    assert dense_kb in message and "no keyword index" in message
