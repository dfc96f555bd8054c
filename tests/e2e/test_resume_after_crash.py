"""A round whose workers die mid-embedding (SIGKILL: a crash, an OOM kill) is requeued by
housekeeping as a new attempt, and that attempt takes over the dead round's chunks and
index rows instead of embedding them again — full mode: RQ workers, the housekeeper, the
milvus-lite server, PostgreSQL, and a real slow embedding server counting its batches."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S, attempt_chunk_ids, chunk_ids
from tests.e2e.stacks import Stack, full_stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer
from tests.support.processes import Process, python

BATCH = 4
PARAGRAPHS = 40
# Short, so the test need not wait long for the sweep; a worker that starts slowly may
# have its round requeued once more, which the assertions allow.
STALE_AFTER_S = 10
KILL_AFTER_CHUNKS = 12


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {
        "SLUICE_EMBED_BATCH_SIZE": str(BATCH),
        # The embedding server this test starts listens on 127.0.0.1.
        "SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1",
        "SLUICE_STALE_AFTER": str(STALE_AFTER_S),
        "SLUICE_HOUSEKEEPING_INTERVAL": "1",
    }
    with full_stack(tmp_path_factory.mktemp("resume-crash"), extra_env=env) as running:
        yield running


def fields(struct: Any) -> dict[str, Any]:
    return struct.to_dict() if struct is not None else {}


def spans(client: SluiceClient, knowledge_id: str, attempt: int = 0) -> dict[str, v1.Span]:
    return {s.name: s for s in client.get_spans(knowledge_id, attempt).spans}


def embedded_so_far(client: SluiceClient, knowledge_id: str) -> int:
    embedding = spans(client, knowledge_id).get("embedding")
    return int(fields(embedding.output).get("chunks_embedded", 0)) if embedding else 0


def test_a_requeued_round_takes_over_what_the_dead_round_indexed(stack: Stack) -> None:
    with EmbeddingServer(delay_s=0.5) as server, SluiceClient(stack.target) as client:
        config = v1.KnowledgeBaseConfig(
            chunking=v1.ChunkingConfig(chunk_size=100, chunk_overlap=0),
            embedding=v1.ModelConfig(
                provider="openai",
                model=server.model,
                base_url=server.url("/v1"),
                dimensions=DIMENSION,
            ),
        )
        kb = client.create_knowledge_base(f"crash-{uuid.uuid4().hex[:8]}", config=config)
        text = "\n\n".join(
            f"Paragraph {i} on gauges and pump pressure, a chunk of its own."
            for i in range(PARAGRAPHS)
        )
        created = client.create_manual(kb.id, "crash.md", text)

        deadline = time.monotonic() + WAIT_S
        while embedded_so_far(client, created.id) < KILL_AFTER_CHUNKS:
            assert time.monotonic() < deadline, "the round never got into its embedding"
            time.sleep(0.1)
        killed = client.get_spans(created.id).attempt
        workers = [name for name in stack.processes if name.startswith("worker")]
        for name in workers:
            stack.processes[name].kill()
        indexed_before = embedded_so_far(client, created.id)
        prefix = stack.env["SLUICE_KEY_PREFIX"]
        stack.processes["worker-after-crash"] = Process(
            "worker-after-crash",
            python("-m", "workers.main", "--name", f"{prefix}-after-crash"),
            stack.env,
        )

        finished = client.wait_until_done(created.id, WAIT_S)
        assert finished.parse_status == v1.ParseStatus.COMPLETED
        assert finished.attempt > killed
        # The chunks are the dead round's (their ids say so), taken over, none rewritten.
        written = attempt_chunk_ids(created.id, killed, PARAGRAPHS)
        assert chunk_ids(client, created.id) == written
        last = spans(client, created.id, finished.attempt)
        chunking = fields(last["chunking"].output)
        assert int(chunking["chunks_kept"]) == PARAGRAPHS
        assert killed <= int(chunking["resumed_from_attempt"]) < finished.attempt
        resumed = int(fields(last["embedding"].output)["chunks_resumed"])
        assert resumed >= indexed_before >= KILL_AFTER_CHUNKS
        # Only the batch in flight when the workers died may have been embedded twice.
        counts: Counter[str] = Counter(server.embedded())
        assert len(counts) == PARAGRAPHS
        assert len([t for t, n in counts.items() if n > 1]) <= BATCH
        hits = client.search("gauges pump pressure", [kb.id], top_k=100)
        found = {h.chunk_id for h in hits if h.knowledge_id == created.id}
        assert found == written
