"""Lite mode: the process SIGKILLed in the middle of a knowledge move or a knowledge base
clone, started again on the same data directory, queues the job again in its startup
recovery pass (the in-process queue died with it) and the job completes: every knowledge
moved or cloned once, its chunks and index rows with it, nothing left behind in the source
and nothing doubled.

Neither job calls anything outside the process in lite mode (no model, no storage server:
the index is milvus-lite in the process), so the test holds the one thing it shares with
the process, the SQLite database: once the job has recorded a first knowledge done it takes
the write lock, so the job waits at its next write — mid-job, with knowledges still to do —
and the process is killed there."""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.clone_jobs import CloneJobRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledge_moves import KnowledgeMoveRepository
from tests.e2e.crash_support import embedding_config, index_rows
from tests.e2e.lifecycle_support import WAIT_S
from tests.e2e.stacks import lite_stack
from tests.support.openai_embeddings import EmbeddingServer

KNOWLEDGES = 8
ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}


def _text(n: int) -> str:
    return "\n\n".join(
        f"Weir {n}, sluice {i}: the keeper let {i * n % 11} boats by." for i in range(8)
    )


def _source_with_knowledges(
    client: SluiceClient, config: v1.KnowledgeBaseConfig
) -> tuple[str, list[str]]:
    source = client.create_knowledge_base(f"src-{uuid.uuid4().hex[:8]}", config=config)
    ids = [client.create_manual(source.id, f"weir-{n}", _text(n)).id for n in range(KNOWLEDGES)]
    for knowledge_id in ids:
        done = client.wait_until_done(knowledge_id, WAIT_S)
        assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
    return source.id, ids


@contextmanager
def _writes_held_once_one_is_done(database: Path, table: str, job_id: str) -> Iterator[int]:
    """Waits until job ``job_id`` in ``table`` counts one knowledge done, then holds
    SQLite's write lock (every writer of the process waits for it) until the block ends;
    yields the job's ``done`` read under the lock."""
    with closing(sqlite3.connect(database, timeout=60, isolation_level=None)) as held:
        deadline = time.monotonic() + WAIT_S
        query = f"SELECT status, done FROM {table} WHERE id = ?"
        while True:
            row = held.execute(query, (job_id,)).fetchone()
            if row is not None and row[1] >= 1:
                break
            assert time.monotonic() < deadline, f"the job never got a knowledge done: {row}"
            time.sleep(0.002)
        held.execute("BEGIN IMMEDIATE")
        try:
            status, done = held.execute(query, (job_id,)).fetchone()
            assert status == "processing", f"the job ended before the lock was taken: {status}"
            yield int(done)
        finally:
            held.execute("ROLLBACK")


def test_a_move_killed_mid_job_completes_after_a_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "lite"
    database_file = data_dir / "sluice.db"
    with EmbeddingServer() as embeddings:
        with lite_stack(data_dir, extra_env=ENV) as stack, SluiceClient(stack.target) as client:
            config = embedding_config(embeddings)
            source, ids = _source_with_knowledges(client, config)
            target = client.create_knowledge_base(f"dst-{uuid.uuid4().hex[:8]}", config=config).id
            job_id = client.move_knowledge(ids, target, v1.MoveMode.REUSE_VECTORS).job_id
            with _writes_held_once_one_is_done(
                database_file, "knowledge_move_jobs", job_id
            ) as done:
                assert 1 <= done < KNOWLEDGES
                stack.processes["api"].kill()

        with lite_stack(data_dir, extra_env=ENV) as stack, SluiceClient(stack.target) as client:
            final = None
            for final in client.watch_move_progress(job_id, timeout=WAIT_S):
                if final.status in (v1.JobStatus.COMPLETED, v1.JobStatus.FAILED):
                    break
            assert final is not None and final.status == v1.JobStatus.COMPLETED, final
            assert (final.total, final.done, final.failed) == (KNOWLEDGES, KNOWLEDGES, 0)
            assert sorted(k.id for k in client.list_knowledge(target)) == sorted(ids)
            assert list(client.list_knowledge(source)) == []

    database = Database.from_url(f"sqlite:///{database_file}")
    try:
        job = KnowledgeMoveRepository(database).get_job(job_id, None)
        assert job is not None and job.recoveries == 1
        chunk_total = sum(ChunkRepository(database).count_by_knowledge(i) for i in ids)
        kb = KnowledgeBaseRepository(database).get(None, target)
        assert kb is not None and chunk_total > 0
        model_key = kb.embedding_model_key
    finally:
        database.dispose()
    milvus = str(data_dir / "milvus.db")
    assert index_rows(milvus, model_key, target) == chunk_total
    assert index_rows(milvus, model_key, source) == 0


def test_a_clone_killed_mid_job_completes_after_a_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "lite"
    database_file = data_dir / "sluice.db"
    with EmbeddingServer() as embeddings:
        with lite_stack(data_dir, extra_env=ENV) as stack, SluiceClient(stack.target) as client:
            source, _ = _source_with_knowledges(client, embedding_config(embeddings))
            started = client.clone_knowledge_base(source)
            with _writes_held_once_one_is_done(
                database_file, "kb_clone_jobs", started.job_id
            ) as done:
                assert 1 <= done < KNOWLEDGES
                stack.processes["api"].kill()

        with lite_stack(data_dir, extra_env=ENV) as stack, SluiceClient(stack.target) as client:
            final = client.wait_for_clone(started.job_id)
            assert final.status == v1.JobStatus.COMPLETED, final.error_message
            assert (final.total, final.done, final.added, final.failed) == (
                KNOWLEDGES,
                KNOWLEDGES,
                KNOWLEDGES,
                0,
            )
            clones = list(client.list_knowledge(started.target_id))
            titles = sorted(k.title for k in clones)
            assert titles == sorted(f"weir-{n}" for n in range(KNOWLEDGES))
            assert {k.parse_status for k in clones} == {v1.ParseStatus.COMPLETED}
            by_title = {k.title: k.id for k in client.list_knowledge(source)}

    database = Database.from_url(f"sqlite:///{database_file}")
    try:
        job = CloneJobRepository(database).get(started.job_id, None)
        assert job is not None and job.recoveries == 1
        chunks = ChunkRepository(database)
        for clone in clones:
            assert chunks.count_by_knowledge(clone.id) == chunks.count_by_knowledge(
                by_title[clone.title]
            )
        kb = KnowledgeBaseRepository(database).get(None, source)
        assert kb is not None
        model_key = kb.embedding_model_key
    finally:
        database.dispose()
    milvus = str(data_dir / "milvus.db")
    assert (
        index_rows(milvus, model_key, started.target_id)
        == index_rows(milvus, model_key, source)
        > 0
    )
