"""A real HTTP server speaking OpenAI's embeddings protocol (`POST /v1/embeddings`) with
deterministic vectors, recording the path of every request it gets: a model endpoint for
the stacks, and the canary of the SSRF tests of model endpoints."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.http_server import BackgroundHttpServer

DIMENSIONS = 8


def vector_of(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [float(b) / 16.0 + 1.0 for b in digest[:DIMENSIONS]]


@dataclass
class EmbeddingServer:
    url: str = ""  # ends in /v1, as a base_url does
    port: int = 0
    requests: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(state: EmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            payload: Any = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(self.path)
            data = [
                {"object": "embedding", "index": n, "embedding": vector_of(text)}
                for n, text in enumerate(payload["input"])
            ]
            body = json.dumps({"object": "list", "data": data}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            with state.lock:
                state.requests.append(self.path)
            self.send_error(404)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serve_openai_embeddings(host: str = "127.0.0.1") -> Iterator[EmbeddingServer]:
    state = EmbeddingServer()
    with BackgroundHttpServer(_handler(state), host) as server:
        state.url, state.port = server.url("/v1"), server.port
        yield state
