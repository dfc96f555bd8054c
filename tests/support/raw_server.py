"""A TCP server on loopback that answers every connection with fixed bytes and records what
it was sent: stands in for a service that does not speak HTTP (Redis, a gRPC port...), or
for an HTTP server whose answer carries a secret, so a test can prove those bytes never
reach an error message. With ``drip_s`` it sends its answer one byte at a time, that long
apart (a server that keeps a connection busy for ever)."""

from __future__ import annotations

import socket
import threading
from types import TracebackType


class RawTcpServer:
    def __init__(self, answer: bytes, host: str = "127.0.0.1", drip_s: float = 0.0) -> None:
        self._answer = answer
        self._drip_s = drip_s
        self._sock = socket.create_server((host, 0))
        self._sock.settimeout(0.1)
        self.host = host
        self.port = int(self._sock.getsockname()[1])
        # The first bytes of each connection: a request line, if it was HTTP.
        self.received: list[bytes] = []
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    self.received.append(conn.recv(65536))
                    self._send(conn)
                except OSError:
                    pass

    def _send(self, conn: socket.socket) -> None:
        if not self._drip_s:
            conn.sendall(self._answer)
            return
        for byte in self._answer:
            if self._closed.wait(self._drip_s):
                return
            conn.sendall(bytes([byte]))

    def close(self) -> None:
        self._closed.set()
        self._sock.close()
        self._thread.join(5)

    def __enter__(self) -> RawTcpServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
