"""Full mode's pools: `sluice-worker` consumes every spec queue, and `--concurrency N` (or a
pool's size) runs N worker processes on the same queues, so N tasks run at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.queue.base import QueueName
from storage.queue.rq_pool import WorkerProcessFailed, run_worker_pool
from storage.queue.rq_queue import RQTaskQueue
from tests.integration.queue.contract import events, spec
from tests.integration.queue.handlers import read_log
from tests.support.databases import REDIS_URL

SLOW_S = 4.0


@pytest.fixture
def queue(key_prefix: str) -> Iterator[RQTaskQueue]:
    task_queue = RQTaskQueue(REDIS_URL, key_prefix=key_prefix)
    yield task_queue
    task_queue.close()


def _env(tmp_path: Path, key_prefix: str, milvus_uri: str, **env: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    clean.update(
        {
            "SLUICE_DATA_DIR": str(tmp_path / "data"),
            "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'sluice.db'}",
            "SLUICE_MILVUS_URI": milvus_uri,
            "SLUICE_REDIS_URL": REDIS_URL,
            "SLUICE_KEY_PREFIX": key_prefix,
            "SLUICE_DOCREADER_ADDRESS": "127.0.0.1:9",
            **env,
        }
    )
    return clean


def _worker(
    tmp_path: Path, key_prefix: str, milvus_uri: str, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workers.main", "--burst", *args],
        env=_env(tmp_path, key_prefix, milvus_uri, **env),
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_a_worker_on_all_queues_consumes_a_task_of_each(
    queue: RQTaskQueue, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    for name in QueueName:
        queue.enqueue(spec("record", {"log": str(log), "value": name.value}, queue=name))

    done = _worker(tmp_path, key_prefix, str(tmp_path / "milvus.db"))

    assert done.returncode == 0, done.stderr
    assert sorted(e["value"] for e in events(log, "ran")) == sorted(q.value for q in QueueName)


def test_concurrency_two_runs_two_tasks_of_a_pool_at_once(
    queue: RQTaskQueue, key_prefix: str, tmp_path: Path, milvus_server_uri: str
) -> None:
    """Two slow tasks on two queues of the enrichment pool, two processes (the pool's size
    from its setting): both start before either ends."""
    log = tmp_path / "log"
    for name in (QueueName.MULTIMODAL, QueueName.GRAPH):
        queue.enqueue(spec("sleep_then_record", {"log": str(log), "sleep_s": SLOW_S}, queue=name))

    # The processes share the index through its server (a milvus-lite file has one owner).
    done = _worker(
        tmp_path,
        key_prefix,
        milvus_server_uri,
        "--pool",
        "enrichment",
        SLUICE_POOL_ENRICHMENT="2",
    )

    assert done.returncode == 0, done.stderr
    order = [entry["event"] for entry in read_log(log)]
    assert order == ["started", "started", "done", "done"], order


def test_concurrency_is_checked(tmp_path: Path, key_prefix: str) -> None:
    for value in ("0", "-1"):
        refused = _worker(tmp_path, key_prefix, str(tmp_path / "m.db"), "--concurrency", value)
        assert refused.returncode == 2, refused.stderr
        assert f"--concurrency must be >= 1, not {value}" in refused.stderr
    typo = _worker(tmp_path, key_prefix, str(tmp_path / "m.db"), "--queues", "defualt")
    assert typo.returncode == 2 and "unknown ['defualt']" in typo.stderr


def test_sigterm_stops_every_process_of_the_pool_handing_their_tasks_back(
    queue: RQTaskQueue, key_prefix: str, tmp_path: Path, milvus_server_uri: str
) -> None:
    log = tmp_path / "log"
    payload = {"log": str(log), "run_s": 60, "release": str(tmp_path / "never")}
    for job_id in ("r1", "r2"):
        queue.enqueue(spec("run_until_shutdown", payload, job_id=job_id, group="rounds"))
    worker = subprocess.Popen(
        [sys.executable, "-m", "workers.main", "--queues", "default", "--concurrency", "2"],
        env=_env(tmp_path, key_prefix, milvus_server_uri, SLUICE_WORKER_SHUTDOWN_GRACE_S="10"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(events(log, "started")) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(events(log, "started")) == 2  # one task in each process
        worker.send_signal(signal.SIGTERM)
        _, stderr = worker.communicate(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0, stderr
    assert len(events(log, "interrupted")) == 2
    # Handed back to the queue, not failed: they wait for the next worker.
    assert queue.is_queued("rounds")
    assert events(log, "done") == []


def _exits_with_three(name: str, burst: bool) -> None:
    raise SystemExit(3)


def test_a_worker_process_that_fails_stops_the_pool() -> None:
    started = time.monotonic()
    with pytest.raises(WorkerProcessFailed, match="exited with code 3"):
        run_worker_pool(2, REDIS_URL, _exits_with_three)
    assert time.monotonic() - started < 10  # not respawned again and again
