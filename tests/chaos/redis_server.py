"""A redis-server of the test's own on a free port, so restarting it disturbs no one else
using the machine's Redis. No persistence: a restart loses everything, the worst case."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.processes import Process, free_port, wait_for_port


class RedisServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.restarts = 0
        self._process = self._start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _start(self) -> Process:
        process = Process(
            "redis",
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            {},
        )
        wait_for_port(self.port, 20, process.proc)
        return process

    def crash_and_restart(self) -> None:
        """SIGKILL, then start again on the same port: every key is gone."""
        self._process.kill()
        self._process = self._start()
        self.restarts += 1

    def crash_for(self, seconds: float) -> None:
        """SIGKILL, stay away ``seconds``, then start again empty on the same port."""
        self._process.kill()
        time.sleep(seconds)
        self._process = self._start()
        self.restarts += 1

    def stop(self) -> None:
        self._process.kill()


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    try:
        yield server
    finally:
        server.stop()
