"""SIGTERM in the middle of a long document. Full mode: the worker exits within its
shutdown grace, the round's spans say it was interrupted by shutdown, its task waits at the
front of the queue with every attempt still to use, and another worker completes it at the
same attempt. Lite mode: the process stops the same way, and its next start resumes the
round at the same attempt."""

from __future__ import annotations

import io
import time
import uuid
from pathlib import Path
from typing import Any

from redis import Redis
from rq.job import Job
from sluice_client import SluiceClient
from sqlalchemy import text

from storage.db.engine import Database
from storage.queue.rq_queue import SERIALIZER, RQTaskQueue
from tests.e2e.stacks import full_stack, lite_stack
from tests.support.databases import REDIS_URL
from tests.support.processes import Process, python

GRACE_S = 20
ENV = {
    "SLUICE_WORKER_SHUTDOWN_GRACE_S": str(GRACE_S),
    # Small batches: a checkpoint every few chunks.
    "SLUICE_EMBED_BATCH_SIZE": "4",
}


def _long_document() -> bytes:
    """Long enough that the embedding stage is still running when the signal comes (about a
    thousand chunks: the multilingual model embeds one in a few milliseconds)."""
    parts = ["# Reservoir ledger", ""]
    for n in range(2000):
        parts.append(
            f"## Entry {n}\n\nOn day {n} the warden of reservoir {n % 17} measured "
            f"{n * 3 % 101} centimetres at sluice {n % 9}, cleared reed bed {n % 23} and "
            f"noted that pump {n % 5} ran for {n % 12} hours before the evening check.\n"
        )
    return "\n".join(parts).encode()


def _query(db: Database, sql: str, **params: Any) -> list[Any]:
    with db.engine.connect() as conn:
        return list(conn.execute(text(sql), params))


def _wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not seen within {timeout}s")
        time.sleep(0.2)


def _embedding_runs(db: Database, kid: str) -> bool:
    return bool(
        _query(
            db,
            "SELECT 1 FROM knowledge_processing_spans WHERE knowledge_id = :k "
            "AND name = 'embedding' AND status = 'running'",
            k=kid,
        )
    )


def _round(db: Database, kid: str) -> tuple[str, int, int]:
    [(status, attempt, requeues)] = _query(
        db, "SELECT parse_status, attempt, auto_requeues FROM knowledges WHERE id = :k", k=kid
    )
    return status, attempt, requeues


def _root_status(db: Database, kid: str) -> str:
    [(status,)] = _query(
        db,
        "SELECT status FROM knowledge_processing_spans WHERE knowledge_id = :k "
        "AND attempt = 1 AND name = 'knowledge_processing'",
        k=kid,
    )
    return str(status)


def _assert_interrupted_by_shutdown(db: Database, kid: str) -> None:
    [(root_status, code, message)] = _query(
        db,
        "SELECT status, error_code, error_message FROM knowledge_processing_spans "
        "WHERE knowledge_id = :k AND attempt = 1 AND name = 'knowledge_processing'",
        k=kid,
    )
    assert (root_status, code) == ("cancelled", "INTERRUPTED_BY_SHUTDOWN")
    assert "interrupted by worker shutdown" in message
    # What the round indexed stays for the next try to resume from, and no more: every
    # chunk its checkpoint counts as indexed is there.
    [(indexed, planned)] = _query(
        db,
        "SELECT indexed_count, chunk_count FROM index_checkpoints WHERE knowledge_id = :k",
        k=kid,
    )
    chunks = _query(db, "SELECT 1 FROM chunks WHERE knowledge_id = :k", k=kid)
    assert indexed < planned and len(chunks) == planned


def test_sigterm_during_a_long_document_hands_it_to_another_worker(tmp_path: Path) -> None:
    with full_stack(tmp_path / "stack", workers=1, extra_env=ENV) as stack:
        db = Database.from_url(stack.env["SLUICE_DATABASE_URL"])
        prefix = stack.env["SLUICE_KEY_PREFIX"]
        redis = Redis.from_url(REDIS_URL)
        queue = RQTaskQueue(REDIS_URL, key_prefix=prefix)
        try:
            with SluiceClient(stack.target) as client:
                kb = client.create_knowledge_base(f"shutdown-{uuid.uuid4().hex[:6]}")
                knowledge = client.upload_file(
                    kb.id, io.BytesIO(_long_document()), file_name="ledger.md"
                )
            kid = knowledge.id

            _wait_for(lambda: _embedding_runs(db, kid), 240, "the embedding stage running")
            worker = stack.processes["worker0"]
            signalled = time.monotonic()
            worker.stop(timeout=GRACE_S + 10)
            assert time.monotonic() - signalled < GRACE_S
            assert worker.proc.returncode == 0, "\n".join(worker.lines[-40:])

            assert _round(db, kid) == ("processing", 1, 0)
            _assert_interrupted_by_shutdown(db, kid)
            rq_id = queue.rq_job_id(f"document-process-{kid}-1")
            assert redis.lindex(f"rq:queue:{prefix}:default", 0) == rq_id.encode()
            job = Job.fetch(rq_id, connection=redis, serializer=SERIALIZER)
            assert job.retries_left == 3

            stack.processes["worker1"] = Process(
                "worker1", python("-m", "workers.main", "--name", f"{prefix}-w1"), stack.env
            )

            _wait_for(
                lambda: _round(db, kid) == ("completed", 1, 0),
                300,
                "completion by the second worker",
            )
            # The root span closes just after the knowledge is marked completed.
            _wait_for(lambda: _root_status(db, kid) != "running", 10, "the root span closing")
            assert _root_status(db, kid) == "done"
        finally:
            queue.close()
            redis.close()
            db.dispose()


def test_sigterm_to_a_lite_process_resumes_the_round_at_its_next_start(tmp_path: Path) -> None:
    data_dir = tmp_path / "lite"
    db = Database.from_url(f"sqlite:///{data_dir / 'sluice.db'}")
    try:
        with lite_stack(data_dir, ENV) as stack:
            with SluiceClient(stack.target) as client:
                kb = client.create_knowledge_base(f"shutdown-{uuid.uuid4().hex[:6]}")
                kid = client.upload_file(
                    kb.id, io.BytesIO(_long_document()), file_name="ledger.md"
                ).id
            _wait_for(lambda: _embedding_runs(db, kid), 240, "the embedding stage running")
            api = stack.processes["api"]
            signalled = time.monotonic()
            api.stop(timeout=GRACE_S + 10)
            assert time.monotonic() - signalled < GRACE_S
            assert api.proc.returncode == 0, "\n".join(api.lines[-40:])
        assert _round(db, kid) == ("processing", 1, 0)
        _assert_interrupted_by_shutdown(db, kid)

        with lite_stack(data_dir, ENV):
            _wait_for(
                lambda: _round(db, kid) == ("completed", 1, 0), 300, "completion after restart"
            )
    finally:
        db.dispose()
