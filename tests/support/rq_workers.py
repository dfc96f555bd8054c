"""Real RQ worker processes (``run_worker`` in child processes) for the queue tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from uuid import uuid4

from storage.queue.base import QueueName
from tests.support.databases import REDIS_URL
from tests.support.processes import PYTHONPATH, REPO

_WORKER_SCRIPT = """
import sys
from storage.queue.base import QueueName
from storage.queue.rq_worker import run_worker
url, prefix, queues, burst, simple, name, grace = sys.argv[1:8]
run_worker(url, prefix, [QueueName(q) for q in queues.split(",")], burst=burst == "1",
           simple=simple == "1", name=name, logging_level="WARNING",
           shutdown_grace_s=float(grace))
"""


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
        env = {**os.environ, "PYTHONPATH": PYTHONPATH}
        process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _WORKER_SCRIPT,
                redis_url,
                prefix,
                ",".join(q.value for q in queues),
                "1" if burst else "0",
                "1" if simple else "0",
                f"w{uuid4().hex[:8]}",
                str(shutdown_grace_s),
            ],
            env=env,
            cwd=REPO,
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
