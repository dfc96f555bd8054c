"""Real processes for end-to-end tests and benchmarks: start, wait until ready, stop."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join([str(REPO), str(REPO / "clients" / "python")])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float, proc: subprocess.Popen[str] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port} after {timeout}s")


class Process:
    """A child process whose output is kept (and printed when a test fails to start it)."""

    def __init__(self, name: str, cmd: Sequence[str], env: Mapping[str, str]) -> None:
        self.name = name
        self.lines: list[str] = []
        self._ready = threading.Event()
        self._pattern: re.Pattern[str] | None = None
        self.match: re.Match[str] | None = None
        full_env = {**os.environ, "PYTHONPATH": PYTHONPATH, "PYTHONUNBUFFERED": "1", **env}
        self.proc = subprocess.Popen(
            list(cmd),
            env=full_env,
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())
            if self._pattern is not None and self.match is None:
                found = self._pattern.search(line)
                if found:
                    self.match = found
                    self._ready.set()

    def wait_for_line(self, pattern: str, timeout: float) -> re.Match[str]:
        self._pattern = re.compile(pattern)
        for line in list(self.lines):
            found = self._pattern.search(line)
            if found:
                self.match = found
                return found
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._ready.wait(0.2) and self.match is not None:
                return self.match
            if self.proc.poll() is not None:
                break
        raise RuntimeError(f"{self.name} not ready:\n" + "\n".join(self.lines[-40:]))

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self, timeout: float = 15.0) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)


def python(*args: str) -> list[str]:
    return [sys.executable, *args]
