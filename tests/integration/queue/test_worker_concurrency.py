"""Full mode's pools: `sluice-worker` consumes every spec queue, and `--concurrency N` (or a
pool's size) runs N worker processes on the same queues, so N tasks run at once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.queue.base import QueueName
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


def _worker(
    tmp_path: Path, key_prefix: str, milvus_uri: str, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    clean.update({
        "SLUICE_DATA_DIR": str(tmp_path / "data"),
        "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'sluice.db'}",
        "SLUICE_MILVUS_URI": milvus_uri,
        "SLUICE_REDIS_URL": REDIS_URL,
        "SLUICE_KEY_PREFIX": key_prefix,
        "SLUICE_DOCREADER_ADDRESS": "127.0.0.1:9",
        **env,
    })
    return subprocess.run(
        [sys.executable, "-m", "workers.main", "--burst", *args],
        env=clean, capture_output=True, text=True, timeout=180,
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
        tmp_path, key_prefix, milvus_server_uri, "--pool", "enrichment",
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
