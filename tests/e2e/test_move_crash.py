"""A knowledge move whose RQ worker is SIGKILLed mid-job (full mode) is queued again by
the stack's housekeeper once its task's heartbeat lapsed and resumes on a new worker: the
knowledges moved before the kill are skipped, the one it was moving (its index rows
relabelled, its rows not yet moved) is moved again, and every knowledge ends wholly in the
target, its index rows with it, none left in the source and none twice.

The kill comes at a deterministic point: the test holds the row lock of the third
knowledge, so the worker waits at that knowledge's commit point."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledge_moves import KnowledgeMoveRepository
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

KNOWLEDGES = 6
HELD = 2  # the third knowledge of the job


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with full_stack(tmp_path_factory.mktemp("move-crash"), workers=1, extra_env=CRASH_ENV) as s:
        yield s


def _text(n: int) -> str:
    return "\n\n".join(
        f"Lock {n}, gate {i}: the keeper logged {i * n % 13} barges." for i in range(8)
    )


def test_a_killed_move_resumes_and_moves_every_knowledge_once(stack: Stack) -> None:
    url = stack.env["SLUICE_DATABASE_URL"]
    database = Database.from_url(url)
    with EmbeddingServer() as embeddings, SluiceClient(stack.target) as client:
        try:
            config = embedding_config(embeddings)
            source = client.create_knowledge_base(f"src-{uuid.uuid4().hex[:8]}", config=config)
            target = client.create_knowledge_base(f"dst-{uuid.uuid4().hex[:8]}", config=config)
            ids = [
                client.create_manual(source.id, f"lock-{n}", _text(n)).id for n in range(KNOWLEDGES)
            ]
            for knowledge_id in ids:
                done = client.wait_until_done(knowledge_id, WAIT_S)
                assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
            chunks = ChunkRepository(database)
            chunk_total = sum(chunks.count_by_knowledge(i) for i in ids)
            kb_row = KnowledgeBaseRepository(database).get(None, source.id)
            assert kb_row is not None
            model_key = kb_row.embedding_model_key
            assert (
                index_rows(stack.env["SLUICE_MILVUS_URI"], model_key, source.id) == chunk_total > 0
            )

            lock = f"SELECT id FROM knowledges WHERE id = '{ids[HELD]}' FOR UPDATE"
            with held_lock(url, lock) as release:
                job_id = client.move_knowledge(ids, target.id, v1.MoveMode.REUSE_VECTORS).job_id
                wait_for_lock_waiter(url, "knowledges")
                kill_workers(stack)
                killed_at = client.get_move_progress(job_id)
                assert killed_at.status == v1.JobStatus.PROCESSING
                assert killed_at.done == HELD
                release()
            start_worker(stack)

            final = None
            for final in client.watch_move_progress(job_id, timeout=WAIT_S):
                if final.status in (v1.JobStatus.COMPLETED, v1.JobStatus.FAILED):
                    break
            assert final is not None and final.status == v1.JobStatus.COMPLETED, final
            assert (final.total, final.done, final.failed) == (KNOWLEDGES, KNOWLEDGES, 0)
            job = KnowledgeMoveRepository(database).get_job(job_id, None)
            assert job is not None and job.recoveries == 1
            assert sorted(k.id for k in client.list_knowledge(target.id)) == sorted(ids)
            assert list(client.list_knowledge(source.id)) == []
            assert sum(chunks.count_by_knowledge(i) for i in ids) == chunk_total
            assert index_rows(stack.env["SLUICE_MILVUS_URI"], model_key, target.id) == chunk_total
            assert index_rows(stack.env["SLUICE_MILVUS_URI"], model_key, source.id) == 0
        finally:
            database.dispose()
