"""Workers killed (SIGKILL) in the middle of a knowledge base clone: full mode (RQ workers,
PostgreSQL, the milvus-lite server). The half-made clones the kill left behind are deleted
by the retried tasks, which start over; the job still completes, with exactly one clone per
source knowledge, the same chunks, and no index row that no chunk owns."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from pymilvus import MilvusClient
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from core.statuses import ParseStatus
from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.clone_jobs import CloneJobRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.index.collection_schema import collection_name
from storage.index.expressions import field_eq
from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import Stack, full_stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer
from tests.support.processes import Process, python
from workers.settings import Settings

KNOWLEDGES = 12
# Small chunks, a paragraph each: a clone of one knowledge writes several batches of 100, so
# the kill finds clones half made.
PARAGRAPHS = 300
# RQ takes a job whose (simple) worker died for abandoned once its time limit plus 60 s
# lapsed; a worker starting after that retries it. Each clone task copies one knowledge.
CLONE_TIMEOUT_S = 15
HEARTBEAT_LAPSE_S = CLONE_TIMEOUT_S + 60 + 5
ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1", "SLUICE_KB_CLONE_TIMEOUT": str(CLONE_TIMEOUT_S)}


@pytest.fixture(scope="module")
def embeddings() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with full_stack(tmp_path_factory.mktemp("kb-clone-crash"), extra_env=ENV) as running:
        yield running


@pytest.fixture(scope="module")
def database(stack: Stack) -> Iterator[Database]:
    db = Database.from_url(Settings.from_env(env=stack.env).storage.database_url)
    try:
        yield db
    finally:
        db.dispose()


def _text(n: int) -> str:
    return "\n\n".join(
        f"Ledger {n}, entry {i}: the tide gauge at berth {i} read {i * n % 97} centimetres."
        for i in range(PARAGRAPHS)
    )


def _index_rows(stack: Stack, model_key: str, kb_id: str) -> int:
    client = MilvusClient(uri=stack.env["SLUICE_MILVUS_URI"])
    try:
        name = collection_name(model_key)
        found = client.query(
            name, filter=field_eq("knowledge_base_id", kb_id), output_fields=["count(*)"]
        )
        return int(found[0]["count(*)"])
    finally:
        client.close()


def test_workers_killed_mid_clone_leave_no_duplicate_and_no_orphan(
    stack: Stack, database: Database, embeddings: EmbeddingServer
) -> None:
    jobs = CloneJobRepository(database)
    with SluiceClient(stack.target) as client:
        config = v1.KnowledgeBaseConfig(
            chunking=v1.ChunkingConfig(chunk_size=100, chunk_overlap=0),
            embedding=v1.ModelConfig(
                provider="openai",
                model=embeddings.model,
                base_url=embeddings.url("/v1"),
                dimensions=DIMENSION,
            ),
        )
        source = client.create_knowledge_base(f"crash-src-{uuid.uuid4().hex[:8]}", config=config)
        created = [
            client.create_manual(source.id, f"ledger-{n}", _text(n)) for n in range(KNOWLEDGES)
        ]
        for knowledge in created:
            assert done(client, knowledge.id).parse_status == v1.ParseStatus.COMPLETED

        started = client.clone_knowledge_base(source.id)
        deadline = time.monotonic() + 120
        while not any(
            k.parse_status == ParseStatus.DRAFT for k in jobs.clones_in(started.target_id)
        ):
            assert time.monotonic() < deadline, "no clone was ever in progress"
            time.sleep(0.02)
        for name in [n for n in stack.processes if n.startswith("worker")]:
            stack.processes[name].kill()
        killed_at = time.monotonic()
        half_made = [
            k.id for k in jobs.clones_in(started.target_id) if k.parse_status == ParseStatus.DRAFT
        ]
        assert half_made, "the kill left no half-made clone to recover from"
        progress = client.get_clone_progress(started.job_id)
        assert progress.status == v1.JobStatus.PROCESSING and progress.done < KNOWLEDGES

        time.sleep(max(0.0, HEARTBEAT_LAPSE_S - (time.monotonic() - killed_at)))
        prefix = stack.env["SLUICE_KEY_PREFIX"]
        stack.processes["worker-after-crash"] = Process(
            "worker-after-crash",
            python("-m", "workers.main", "--name", f"{prefix}-after-crash"),
            stack.env,
        )
        final = client.wait_for_clone(started.job_id)
        assert final.status == v1.JobStatus.COMPLETED, final.error_message
        assert (final.total, final.done, final.added, final.failed) == (KNOWLEDGES,) * 3 + (0,)

        clones = list(client.list_knowledge(started.target_id))
        assert sorted(k.title for k in clones) == sorted(f"ledger-{n}" for n in range(KNOWLEDGES))
        assert {k.parse_status for k in clones} == {v1.ParseStatus.COMPLETED}
        assert not set(half_made) & {k.id for k in clones}, "a half-made clone was kept"
        chunks = ChunkRepository(database)
        by_title = {k.title: k.id for k in client.list_knowledge(source.id)}
        for clone in clones:
            assert chunks.count_by_knowledge(clone.id) == chunks.count_by_knowledge(
                by_title[clone.title]
            )
    model_key = KnowledgeBaseRepository(database).get(None, source.id)
    assert model_key is not None
    rows = _index_rows(stack, model_key.embedding_model_key, started.target_id)
    assert rows == _index_rows(stack, model_key.embedding_model_key, source.id) > 0
