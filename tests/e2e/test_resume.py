"""A long embedding that outlasts its try's time limit resumes on the next try instead of
starting over, end to end in lite and full mode: the real API, queue (RQ's job timeout in
full mode, the lite executor's in lite mode) and index, with a real, slow OpenAI-compatible
embedding server that counts the batches it is asked for."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S, chunk_ids
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer

BATCH = 4
TIME_LIMIT_S = 8
PARAGRAPHS = 72  # 18 batches at EMBED_DELAY_S each: about twice the time limit
EMBED_DELAY_S = 0.8
ENV = {
    "SLUICE_DOCUMENT_PROCESS_TIMEOUT": str(TIME_LIMIT_S),
    "SLUICE_EMBED_BATCH_SIZE": str(BATCH),
    # The embedding server these tests start listens on 127.0.0.1.
    "SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1",
}


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"resume-{request.param}"), extra_env=ENV) as running:
        yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


def fields(struct: Any) -> dict[str, Any]:
    return struct.to_dict() if struct is not None else {}


def paragraphs(count: int) -> str:
    return "\n\n".join(
        f"Paragraph {i} about pump pressure at the lighthouse, a chunk on its own."
        for i in range(count)
    )


def knowledge_base(client: SluiceClient, server: EmbeddingServer) -> v1.KnowledgeBase:
    config = v1.KnowledgeBaseConfig(
        chunking=v1.ChunkingConfig(chunk_size=100, chunk_overlap=0),
        embedding=v1.ModelConfig(
            provider="openai",
            model=server.model,
            base_url=server.url("/v1"),
            dimensions=DIMENSION,
        ),
    )
    return client.create_knowledge_base(f"resume-{uuid.uuid4().hex[:8]}", config=config)


def test_a_round_past_its_time_limit_goes_on_from_its_last_indexed_batch(
    stack: Stack, client: SluiceClient
) -> None:
    with EmbeddingServer(delay_s=EMBED_DELAY_S) as server:
        kb = knowledge_base(client, server)
        created = client.create_manual(kb.id, "resume.md", paragraphs(PARAGRAPHS))
        finished = client.wait_until_done(created.id, WAIT_S)

        assert finished.parse_status == v1.ParseStatus.COMPLETED
        assert finished.attempt == 1, "the queue's retries, not a new round"
        spans = {s.name: s for s in client.get_spans(created.id).spans}
        root_input = fields(spans["knowledge_processing"].input)
        tries = int(root_input["queue_try"])
        assert tries >= 2, "the first try must have hit its time limit"
        assert int(root_input["time_limit_s"]) == TIME_LIMIT_S
        for n in range(1, tries):
            failed = spans[f"retry.{n}"]
            assert failed.status == v1.SpanStatus.FAILED
            assert failed.stage == v1.Stage.EMBEDDING
            # The time limit may strike inside a Milvus call, which then reports RQ's
            # "Task exceeded maximum timeout value" wrapped in its own error.
            message = failed.error_message.lower()
            assert "time limit" in message or "timeout" in message
        embedding = fields(spans["embedding"].output)
        assert int(embedding["chunks_resumed"]) > 0
        assert int(embedding["chunks_indexed"]) == PARAGRAPHS

        # Each timed-out try loses at most the batch it was waiting for; nothing else is
        # embedded twice, and every chunk is in the index once.
        counts: Counter[str] = Counter(server.embedded())
        assert len(counts) == PARAGRAPHS
        twice = [text for text, n in counts.items() if n > 1]
        assert len(twice) <= BATCH * (tries - 1)
        assert max(counts.values()) <= 2
        ids = chunk_ids(client, created.id)
        assert len(ids) == PARAGRAPHS
        hits = client.search("pump pressure lighthouse", [kb.id], top_k=100)
        assert {h.chunk_id for h in hits if h.knowledge_id == created.id} == ids


def test_the_embedding_span_warns_before_the_time_limit_is_hit(
    stack: Stack, client: SluiceClient
) -> None:
    with EmbeddingServer(delay_s=EMBED_DELAY_S) as server:
        kb = knowledge_base(client, server)
        created = client.create_manual(kb.id, "warned.md", paragraphs(PARAGRAPHS))
        warnings: list[tuple[int, dict[str, Any]]] = []

        def watch(event: v1.WatchSpansResponse) -> None:
            for span in event.spans:
                outputs = fields(span.output)
                if span.name == "embedding" and "time_limit_warning" in outputs:
                    warnings.append((span.attempt, outputs))

        finished = client.wait_until_done(created.id, WAIT_S, on_event=watch)

        assert finished.parse_status == v1.ParseStatus.COMPLETED
        assert warnings, "the first try's embedding span said it would not make it"
        first = warnings[0][1]
        assert int(first["time_limit_s"]) == TIME_LIMIT_S
        assert float(first["projected_s_to_finish"]) > float(first["time_left_s"])
        assert "a retry goes on from the last indexed batch" in str(first["time_limit_warning"])
