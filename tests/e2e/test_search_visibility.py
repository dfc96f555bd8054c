"""What Search finds, over the real API in lite and full mode: only knowledges that finished
indexing (ListChunks' is_enabled says the same), and hybrid results when no mode is named."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer

BATCH = 2
PARAGRAPHS = 10  # 5 batches at EMBED_DELAY_S each
EMBED_DELAY_S = 0.6
ENV = {
    "SLUICE_EMBED_BATCH_SIZE": str(BATCH),
    # The embedding server these tests start listens on 127.0.0.1.
    "SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1",
}
QUERY = "sluice gate calibration"


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"visibility-{request.param}"), extra_env=ENV) as running:
        yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer(delay_s=EMBED_DELAY_S) as running:
        yield running


def _knowledge_base(client: SluiceClient, server: EmbeddingServer) -> v1.KnowledgeBase:
    config = v1.KnowledgeBaseConfig(
        chunking=v1.ChunkingConfig(chunk_size=100, chunk_overlap=0),
        embedding=v1.ModelConfig(
            provider="openai",
            model=server.model,
            base_url=server.url("/v1"),
            dimensions=DIMENSION,
        ),
    )
    return client.create_knowledge_base(f"visible-{uuid.uuid4().hex[:8]}", config=config)


def _paragraphs(count: int) -> str:
    return "\n\n".join(
        f"Paragraph {i}: the sluice gate calibration log, entry {i}." for i in range(count)
    )


def _outputs(span: v1.Span) -> dict[str, Any]:
    return span.output.to_dict() if span.output is not None else {}


def test_a_knowledge_still_embedding_is_not_found_and_its_chunks_are_not_enabled(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    kb = _knowledge_base(client, server)
    created = client.create_manual(kb.id, "gates.md", _paragraphs(PARAGRAPHS))
    seen_mid_way: list[tuple[set[str], set[bool], v1.EnableStatus]] = []
    planned: list[int] = []

    def during(event: v1.WatchSpansResponse) -> None:
        for span in event.spans:
            outputs = _outputs(span)
            if span.name == "chunking" and "chunks_planned" in outputs:
                planned.append(int(outputs["chunks_planned"]))
            embedded = int(outputs.get("chunks_embedded", 0))
            if seen_mid_way or span.name != "embedding" or not planned:
                continue
            if not 0 < embedded < planned[-1]:
                continue
            # Some batches are in the index already, and the knowledge is not enabled.
            hits = client.search(QUERY, [kb.id], top_k=50, mode=v1.SearchMode.KEYWORD)
            chunks = list(client.list_chunks(created.id))
            status = client.get_knowledge(created.id).enable_status
            seen_mid_way.append(
                ({h.chunk_id for h in hits}, {c.is_enabled for c in chunks}, status)
            )

    finished = client.wait_until_done(created.id, WAIT_S, on_event=during)

    assert finished.enable_status == v1.EnableStatus.ENABLED
    assert seen_mid_way, "the watch saw the embedding stage part-way"
    hits_then, enabled_then, status_then = seen_mid_way[0]
    assert status_then == v1.EnableStatus.DISABLED
    assert hits_then == set()
    assert enabled_then == {False}
    chunk_ids = {c.id for c in client.list_chunks(created.id)}
    assert {c.is_enabled for c in client.list_chunks(created.id)} == {True}
    for mode in (v1.SearchMode.KEYWORD, v1.SearchMode.VECTOR, v1.SearchMode.HYBRID):
        hits = client.search(QUERY, [kb.id], top_k=50, mode=mode)
        assert {h.chunk_id for h in hits} == chunk_ids


def test_search_without_a_mode_is_hybrid_and_keeps_the_best_keyword_match(
    client: SluiceClient, server: EmbeddingServer
) -> None:
    kb = _knowledge_base(client, server)
    text = _paragraphs(6) + "\n\nThe spare part number is QX-7731, kept in drawer four."
    created = client.create_manual(kb.id, "parts.md", text)
    assert client.wait_until_done(created.id, WAIT_S).enable_status == v1.EnableStatus.ENABLED

    default = client.search("QX-7731", [kb.id], top_k=2)
    hybrid = client.search("QX-7731", [kb.id], top_k=2, mode=v1.SearchMode.HYBRID)
    vector = client.search("QX-7731", [kb.id], top_k=2, mode=v1.SearchMode.VECTOR)

    assert [(h.chunk_id, h.score) for h in default] == [(h.chunk_id, h.score) for h in hybrid]
    assert [h.score for h in default] != [h.score for h in vector]
    # The test embedder's vectors are hashes: only the keyword side knows the part number,
    # and its first hit is kept in the fused top 2.
    assert any("QX-7731" in h.content for h in default)
