"""Shared fixtures of the queue tests: a unique Redis key prefix (cleaned afterwards), RQ
worker processes started with ``subprocess``, and polling helpers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from uuid import uuid4

import pytest
from redis import Redis

from storage.queue.base import QueueName

REDIS_URL = os.environ.get("SLUICE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
REPO_ROOT = Path(__file__).resolve().parents[3]

_WORKER_SCRIPT = """
import sys
from storage.queue.base import QueueName
from storage.queue.rq_worker import run_worker
url, prefix, queues, burst, simple, name, grace = sys.argv[1:8]
run_worker(url, prefix, [QueueName(q) for q in queues.split(",")], burst=burst == "1",
           simple=simple == "1", name=name, logging_level="WARNING",
           shutdown_grace_s=float(grace))
"""


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(0.05)


def clean_redis(redis: Redis, prefix: str) -> None:
    for key in redis.scan_iter(match=f"*{prefix}*", count=1000):
        redis.delete(key)
    for member in redis.smembers("rq:queues"):
        if prefix.encode() in member:
            redis.srem("rq:queues", member)


@pytest.fixture
def redis_client() -> Iterator[Redis]:
    client = Redis.from_url(REDIS_URL)
    yield client
    client.close()


def _new_prefix(redis: Redis, request: pytest.FixtureRequest) -> str:
    prefix = f"sluice_test_{uuid4().hex[:8]}"
    request.addfinalizer(lambda: clean_redis(redis, prefix))
    return prefix


@pytest.fixture
def key_prefix(redis_client: Redis, request: pytest.FixtureRequest) -> str:
    return _new_prefix(redis_client, request)


@pytest.fixture
def other_key_prefix(redis_client: Redis, request: pytest.FixtureRequest) -> str:
    return _new_prefix(redis_client, request)


class WorkerProcesses:
    """Starts ``run_worker`` in child processes; stops leftovers by pid at teardown."""

    def __init__(self) -> None:
        self._started: list[subprocess.Popen[str]] = []

    def start(
        self,
        prefix: str,
        queues: Sequence[QueueName] = (QueueName.DEFAULT,),
        *,
        burst: bool,
        simple: bool = False,
        redis_url: str = REDIS_URL,
        shutdown_grace_s: float = 30.0,
    ) -> subprocess.Popen[str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "clients/python")])
        process = subprocess.Popen(
            [
                sys.executable, "-c", _WORKER_SCRIPT, redis_url, prefix,
                ",".join(q.value for q in queues), "1" if burst else "0",
                "1" if simple else "0", f"w{uuid4().hex[:8]}", str(shutdown_grace_s),
            ],
            env=env,
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._started.append(process)
        return process

    def run_burst(
        self,
        prefix: str,
        queues: Sequence[QueueName] = (QueueName.DEFAULT,),
        *,
        simple: bool = False,
    ) -> str:
        """Run a burst worker until the queues are empty; returns its output."""
        process = self.start(prefix, queues, burst=True, simple=simple)
        output, _ = process.communicate(timeout=30)
        assert process.returncode == 0, output
        return output

    def stop(self, process: subprocess.Popen[str], timeout: float = 10.0) -> int:
        """SIGTERM (warm shutdown) and wait; returns the exit code."""
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=timeout)
        if process.returncode != 0:
            print(output)  # shown by pytest with the failing test
        return process.returncode

    def close(self) -> None:
        for process in self._started:
            if process.poll() is None:
                process.kill()
                process.communicate(timeout=10)


@pytest.fixture
def workers() -> Iterator[WorkerProcesses]:
    processes = WorkerProcesses()
    yield processes
    processes.close()
