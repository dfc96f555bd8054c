"""SIGKILLing a worker at a deterministic point of a maintenance job, for the e2e crash
tests: an embedding model server whose Nth request is held until the test lets it go (the
worker is then certainly inside the job, waiting on it), the short heartbeat and
housekeeping settings under which the stack's housekeeper recovers the job within
seconds, and a fresh worker started after the kill."""

from __future__ import annotations

import threading

from tests.e2e.stacks import Stack
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.processes import Process, python

HEARTBEAT_TTL_S = 2
CRASH_ENV = {
    "SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1",
    "SLUICE_TASK_HEARTBEAT_TTL": str(HEARTBEAT_TTL_S),
    "SLUICE_HOUSEKEEPING_INTERVAL": "1",
}
HOLD_S = 60.0


class HeldEmbeddings(EmbeddingServer):
    """Answers every request but the ``hold_at``-th (1-based) at once; that one waits until
    ``release()`` (or ``HOLD_S``). ``held`` is set once it arrived."""

    def __init__(self, hold_at: int) -> None:
        self.held = threading.Event()
        self._release = threading.Event()
        self._hold_at = hold_at
        super().__init__(self._answer)

    def _answer(self, number: int) -> None:
        if number == self._hold_at:
            self.held.set()
            self._release.wait(HOLD_S)

    def wait_held(self, timeout_s: float = 120.0) -> None:
        assert self.held.wait(timeout_s), "the job never reached the held request"

    def release(self) -> None:
        self._release.set()


def kill_workers(stack: Stack) -> None:
    for name in [n for n in stack.processes if n.startswith("worker")]:
        stack.processes[name].kill()


def start_worker(stack: Stack, name: str = "after-kill") -> None:
    prefix = stack.env["SLUICE_KEY_PREFIX"]
    stack.processes[f"worker-{name}"] = Process(
        f"worker-{name}", python("-m", "workers.main", "--name", f"{prefix}-{name}"), stack.env
    )
