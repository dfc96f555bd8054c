"""A knowledge base clone whose RQ workers are SIGKILLed mid-job (full mode) is queued
again by the stack's housekeeper once its tasks' heartbeats lapsed — seconds, not the clone
tasks' time limit — and completes on a new worker: exactly one clone per source knowledge,
the same chunks, and no index row that no chunk owns.

The kill comes at a deterministic point: the test holds a SHARE lock on kb_clone_items, so
every clone task waits where it would end its item (its clone made, the item not ended)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.clone_jobs import CloneJobRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from tests.e2e.crash_support import (
    CRASH_ENV,
    embedding_config,
    held_lock,
    index_rows,
    kill_workers,
    start_worker,
    wait_for_lock_waiter,
)
from tests.e2e.lifecycle_support import WAIT_S
from tests.e2e.stacks import Stack, full_stack
from tests.support.openai_embeddings import EmbeddingServer

KNOWLEDGES = 5


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with full_stack(tmp_path_factory.mktemp("clone-crash"), workers=1, extra_env=CRASH_ENV) as s:
        yield s


def _text(n: int) -> str:
    return "\n\n".join(f"Ledger {n}, berth {i}: the gauge read {i * n % 97} cm." for i in range(8))


def test_workers_killed_mid_clone_leave_no_duplicate_and_no_orphan(stack: Stack) -> None:
    url = stack.env["SLUICE_DATABASE_URL"]
    database = Database.from_url(url)
    with EmbeddingServer() as embeddings, SluiceClient(stack.target) as client:
        try:
            config = embedding_config(embeddings)
            source = client.create_knowledge_base(f"src-{uuid.uuid4().hex[:8]}", config=config)
            created = [
                client.create_manual(source.id, f"ledger-{n}", _text(n)) for n in range(KNOWLEDGES)
            ]
            for knowledge in created:
                done = client.wait_until_done(knowledge.id, WAIT_S)
                assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message

            with held_lock(url, "LOCK TABLE kb_clone_items IN SHARE MODE") as release:
                started = client.clone_knowledge_base(source.id)
                wait_for_lock_waiter(url, "kb_clone_items")
                kill_workers(stack)
                progress = client.get_clone_progress(started.job_id)
                assert progress.status == v1.JobStatus.PROCESSING and progress.done == 0
                release()
            start_worker(stack)

            final = client.wait_for_clone(started.job_id)
            assert final.status == v1.JobStatus.COMPLETED, final.error_message
            assert (final.total, final.done, final.added, final.failed) == (KNOWLEDGES,) * 3 + (0,)
            job = CloneJobRepository(database).get(started.job_id, None)
            assert job is not None and job.recoveries >= 1

            clones = list(client.list_knowledge(started.target_id))
            assert sorted(k.title for k in clones) == sorted(
                f"ledger-{n}" for n in range(KNOWLEDGES)
            )
            assert {k.parse_status for k in clones} == {v1.ParseStatus.COMPLETED}
            chunks = ChunkRepository(database)
            by_title = {k.title: k.id for k in client.list_knowledge(source.id)}
            for clone in clones:
                assert chunks.count_by_knowledge(clone.id) == chunks.count_by_knowledge(
                    by_title[clone.title]
                )
            kb = KnowledgeBaseRepository(database).get(None, source.id)
            assert kb is not None
            rows = index_rows(
                stack.env["SLUICE_MILVUS_URI"], kb.embedding_model_key, started.target_id
            )
            assert (
                rows
                == index_rows(stack.env["SLUICE_MILVUS_URI"], kb.embedding_model_key, source.id)
                > 0
            )
        finally:
            database.dispose()
