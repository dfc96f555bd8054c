"""A real OpenAI-compatible embeddings server (`POST /v1/embeddings`): deterministic vectors,
a log of every request's inputs, and failures planned by request number, so a test can make
it fail after N requests (and recover) and count exactly which batches it was asked for; it
also records the path of every request it gets, which makes it the canary of the SSRF tests
of model endpoints."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from tests.support.http_server import BackgroundHttpServer

DIMENSION = 8


@dataclass(frozen=True)
class Request:
    number: int
    inputs: tuple[str, ...]
    status: int


def vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [float(b) + 1.0 for b in digest[:DIMENSION]]


class EmbeddingServer(BackgroundHttpServer):
    """``fail(n)`` gives the HTTP status to answer request ``n`` (1-based) with instead of
    embeddings (None: embed). Failures carry ``Retry-After: 0`` so client retries are quick.
    ``delay_s`` is how long each embedding answer takes (a slow model)."""

    def __init__(
        self,
        fail: Callable[[int], int | None] = lambda n: None,
        *,
        delay_s: float = 0.0,
        host: str = "127.0.0.1",
    ) -> None:
        self.requests: list[Request] = []
        # The path of every request, whatever it asked for.
        self.paths: list[str] = []
        self.fail = fail
        self.delay_s = delay_s
        self._lock = threading.Lock()
        server = self

        class _Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                with server._lock:
                    server.paths.append(self.path)
                if not self.path.endswith("/embeddings"):
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                inputs = tuple(str(text) for text in body["input"])
                with server._lock:
                    number = len(server.requests) + 1
                    status = server.fail(number) or 200
                    server.requests.append(Request(number, inputs, status))
                if status != 200:
                    self._answer(status, {"error": {"message": f"planned failure {number}"}},
                                 {"Retry-After": "0"})
                    return
                time.sleep(server.delay_s)
                data = [{"object": "embedding", "index": i, "embedding": vector(t)}
                        for i, t in enumerate(inputs)]
                self._answer(200, {"object": "list", "data": data, "model": body["model"]}, {})

            def do_GET(self) -> None:
                with server._lock:
                    server.paths.append(self.path)
                self.send_error(404)

            def _answer(self, status: int, payload: object, headers: dict[str, str]) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: object) -> None:
                pass

        super().__init__(_Handler, host)
        # Embedders are cached per model key: each server gets a model name of its own.
        self.model = f"test-model-{self.port}"

    def __enter__(self) -> EmbeddingServer:
        return self

    def kb_config(self) -> dict[str, object]:
        """The knowledge-base "embedding" section that points at this server."""
        return {
            "provider": "openai",
            "model": self.model,
            "base_url": self.url("/v1"),
            "dimensions": DIMENSION,
        }

    @property
    def model_key(self) -> str:
        return f"openai/{self.model}/{DIMENSION}"

    def embedded(self) -> list[str]:
        """Every input the server answered with a vector, in order."""
        with self._lock:
            return [t for r in self.requests if r.status == 200 for t in r.inputs]

    def log(self) -> list[Request]:
        with self._lock:
            return list(self.requests)
