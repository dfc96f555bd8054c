"""A grpc.aio stream that its client leaves while the server waits to send a response:
the access log's record is written after grpc has released the call (when the handler's
suspended generator is collected), and writing it must not touch the call. It read
``context.peer()`` there, which dereferences the released call: the API process died of
SIGSEGV and every client connected to it saw UNAVAILABLE "Socket closed". The record
says CANCELLED: the client left."""

from __future__ import annotations

import time
from collections.abc import Iterator

import grpc
import pytest

from tests.integration.observability.abandoned_stream_server import SERVICE
from tests.support.processes import Process, python

ABANDONED = 5


@pytest.fixture
def server() -> Iterator[Process]:
    process = Process(
        "abandoned-stream-server",
        python("-m", "tests.integration.observability.abandoned_stream_server"),
        {},
    )
    try:
        yield process
    finally:
        process.stop()


def _records(process: Process, method: str) -> list[list[str]]:
    return [line.split() for line in process.lines if line.startswith(f"rpc /{SERVICE}/{method} ")]


def test_a_stream_left_while_sending_is_logged_and_the_server_lives(server: Process) -> None:
    port = server.wait_for_line(r"listening on 127\.0\.0\.1:(\d+)", timeout=60).group(1)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        flood: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(
            f"/{SERVICE}/Flood"
        )
        echo: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(f"/{SERVICE}/Echo")
        for _ in range(ABANDONED):
            stream = flood(b"")
            assert len(next(stream)) == 1 << 20
            # Unread messages fill the flow-control window: the server is blocked sending.
            time.sleep(0.3)
            stream.cancel()
        deadline = time.monotonic() + 30
        while len(_records(server, "Flood")) < ABANDONED and server.proc.poll() is None:
            assert time.monotonic() < deadline, "\n".join(server.lines[-20:])
            assert echo(b"ping", timeout=10) == b"ping"
            time.sleep(0.1)
        assert server.proc.poll() is None, f"the server died: {server.proc.returncode}"
        assert echo(b"still here", timeout=10) == b"still here"
    records = _records(server, "Flood")
    assert len(records) == ABANDONED
    # The client left: CANCELLED (not UNKNOWN, which is logged as a server fault).
    assert {code for _, _, code, _ in records} == {"CANCELLED"}
    assert all(peer.startswith("ipv4:127.0.0.1:") for *_, peer in records)
