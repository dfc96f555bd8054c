"""Real HTTP(S) servers on loopback for tests: a handler class served from a thread, and a
routed server that records every request it receives (the canary of the SSRF tests)."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

Reply = Callable[[BaseHTTPRequestHandler], None]


class BackgroundHttpServer:
    """Serves ``handler`` on ``port`` (by default a free one) of ``host`` until closed."""

    def __init__(
        self,
        handler: type[BaseHTTPRequestHandler],
        host: str = "127.0.0.1",
        tls: ssl.SSLContext | None = None,
        port: int = 0,
    ) -> None:
        self._httpd = ThreadingHTTPServer((host, port), handler)
        self._httpd.daemon_threads = True
        if tls is not None:
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
        self.host = host
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def url(self, path: str = "", host: str = "", scheme: str = "http") -> str:
        return f"{scheme}://{host or self.host}:{self.port}{path}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)

    def __enter__(self) -> BackgroundHttpServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class RecordingServer(BackgroundHttpServer):
    """Answers GETs from ``routes`` (else with ``default``) and records (path, Host header)
    of every request, so a test can prove a request never arrived."""

    def __init__(
        self,
        routes: dict[str, Reply] | None = None,
        *,
        default: Reply,
        host: str = "127.0.0.1",
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.requests: list[tuple[str, str]] = []
        # Shared, not copied: a test may add routes that need the server's port.
        self.routes: dict[str, Reply] = routes if routes is not None else {}
        server = self

        class _Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append((self.path, self.headers.get("Host", "")))
                server.routes.get(self.path, default)(self)

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep test output clean

        super().__init__(_Handler, host, tls)

    @property
    def paths(self) -> list[str]:
        return [path for path, _ in self.requests]
