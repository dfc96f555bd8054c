"""The chaos monkey: every few seconds it SIGKILLs a random worker process (no warm
shutdown, no cleanup: a crash or an OOM kill) and starts a replacement, as a supervisor
would. A worker that exited by itself is replaced too, and counted."""

from __future__ import annotations

import random
import threading

from tests.e2e.stacks import Stack
from tests.support.processes import Process, python


class ChaosMonkey:
    def __init__(self, stack: Stack, *, seed: int, pause_s: tuple[float, float]) -> None:
        self._stack = stack
        self._random = random.Random(seed)
        self._pause_s = pause_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="chaos-monkey", daemon=True)
        self._started = 0
        self.killed = 0
        self.exited_by_themselves = 0
        # Dead workers, kept for their output.
        self.retired: list[Process] = []

    def __enter__(self) -> ChaosMonkey:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)

    def _workers(self) -> dict[str, Process]:
        return {
            name: process
            for name, process in self._stack.processes.items()
            if name.startswith("worker") and process.proc.poll() is None
        }

    def _run(self) -> None:
        while not self._stop.wait(self._random.uniform(*self._pause_s)):
            for name, process in list(self._stack.processes.items()):
                if name.startswith("worker") and process.proc.poll() is not None:
                    self.exited_by_themselves += 1
                    self._replace(name)
            alive = self._workers()
            if alive:
                victim = self._random.choice(sorted(alive))
                alive[victim].kill()
                self.killed += 1
                self._replace(victim)

    def _replace(self, name: str) -> None:
        self._started += 1
        prefix = self._stack.env["SLUICE_KEY_PREFIX"]
        self.retired.append(self._stack.processes.pop(name))
        replacement = f"worker-r{self._started}"
        self._stack.processes[replacement] = Process(
            replacement,
            python("-m", "workers.main", "--name", f"{prefix}-r{self._started}"),
            self._stack.env,
        )
