"""`sluice-worker` builds every part from the one Settings it read: a worker process started
with SLUICE_MODE unset (the environment alone would say lite) runs its task handlers in the
full-mode context it built, on the queue prefix it was given."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.queue.rq_queue import RQTaskQueue
from tests.integration.queue.contract import events, spec
from tests.support.databases import REDIS_URL


@pytest.fixture
def queue(key_prefix: str) -> Iterator[RQTaskQueue]:
    task_queue = RQTaskQueue(REDIS_URL, key_prefix=key_prefix)
    yield task_queue
    task_queue.close()


def test_a_worker_runs_its_tasks_in_the_full_mode_context_it_built(
    queue: RQTaskQueue, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    queue.enqueue(spec("record_worker_context", {"log": str(log)}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env.update(
        {
            "SLUICE_DATA_DIR": str(tmp_path / "data"),
            "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'sluice.db'}",
            "SLUICE_MILVUS_URI": str(tmp_path / "milvus.db"),
            "SLUICE_REDIS_URL": REDIS_URL,
            "SLUICE_KEY_PREFIX": key_prefix,
            "SLUICE_DOCREADER_ADDRESS": "127.0.0.1:9",
        }
    )

    done = subprocess.run(
        [sys.executable, "-m", "workers.main", "--burst", "--queues", "default"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    [seen] = events(log, "context")
    assert seen["mode"] == "full"
    assert seen["auth_required"]  # full mode's default, not lite's
    assert seen["key_prefix"] == key_prefix
