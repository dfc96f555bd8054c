"""A real OpenAI-compatible embeddings server (`POST /v1/embeddings`): deterministic vectors
(answered in reverse order: clients must sort by "index"), a log of every request's inputs,
model and authorization, and failures planned by request number or as the next replies, so a
test can make it fail after N requests (and recover), answer with any status, headers and
body (a malformed answer, a rate limit), and count exactly which batches it was asked for;
pictures sent as ``{"image": "data:...;base64,..."}`` inputs (a multimodal model) are
embedded as the text ``image_text(picture)`` names, so a test decides where a picture lands
in the text space; it also records the path of every request it gets, which makes it the
canary of the SSRF tests of model endpoints, and the client's address of each (which
connection it came on). It closes each connection after its answer unless ``keep_alive``;
with ``tls`` it speaks HTTPS. Every test that needs an embedding endpoint uses this one."""

from __future__ import annotations

import base64
import hashlib
import json
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from tests.support.http_server import BackgroundHttpServer

DIMENSION = 8


@dataclass(frozen=True)
class Reply:
    """An answer given instead of embeddings: any status, body and headers."""

    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    number: int
    inputs: tuple[str, ...]
    status: int
    model: str = ""
    # The Authorization header as sent (None: none).
    authorization: str | None = None
    # Answered with vectors (not with a planned reply).
    embedded: bool = False
    # The pictures among the inputs, decoded (their inputs read "<image/png image>").
    images: tuple[bytes, ...] = ()
    # The client's (address, port): the connection the request came on.
    peer: tuple[str, int] = ("", 0)
    # The Host header as sent.
    host: str = ""


def vector(text: str) -> list[float]:
    """Deterministic, deliberately not normalised (norm > 1)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [float(b) + 1.0 for b in digest[:DIMENSION]]


def _picture(item: object) -> bytes | None:
    if not isinstance(item, dict) or "image" not in item:
        return None
    return base64.b64decode(str(item["image"]).partition(",")[2])


def _picture_type(item: object) -> str:
    assert isinstance(item, dict)
    return str(item["image"]).removeprefix("data:").partition(";")[0]


def _failure(status: int, number: int) -> Reply:
    # Retry-After: 0 keeps client retries quick.
    body = json.dumps({"error": {"message": f"planned failure {number}"}})
    return Reply(status, body, {"Retry-After": "0"})


class EmbeddingServer(BackgroundHttpServer):
    """``fail(n)`` gives what to answer request ``n`` (1-based) with instead of embeddings:
    an HTTP status (a planned-failure error carrying ``Retry-After: 0``), a whole Reply, or
    None (embed). Replies given to ``plan`` answer the next requests first, in order.
    ``delay_s`` is how long each embedding answer takes (a slow model); ``image_text`` gives
    the text whose vector a picture gets (by default its bytes' digest)."""

    def __init__(
        self,
        fail: Callable[[int], int | Reply | None] = lambda n: None,
        *,
        delay_s: float = 0.0,
        image_text: Callable[[bytes], str] = lambda data: hashlib.sha256(data).hexdigest(),
        host: str = "127.0.0.1",
        port: int = 0,
        keep_alive: bool = False,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.requests: list[Request] = []
        # The path of every request, whatever it asked for.
        self.paths: list[str] = []
        self.fail = fail
        self.delay_s = delay_s
        self.image_text = image_text
        self._planned: deque[Reply] = deque()
        self._lock = threading.Lock()
        server = self

        class _Handler(BaseHTTPRequestHandler):
            # HTTP/1.1 keeps the connection open; without Nagle, as servers of models run.
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                with server._lock:
                    server.paths.append(self.path)
                # Read whatever the route: on a kept-alive connection the next request follows.
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path != "/v1/embeddings":
                    message = f"no route {self.path}"
                    self._answer(Reply(404, json.dumps({"error": {"message": message}})))
                    return
                body = json.loads(raw)
                images = [_picture(item) for item in body["input"]]
                inputs = tuple(
                    f"<{_picture_type(item)} image>" if picture is not None else str(item)
                    for item, picture in zip(body["input"], images, strict=True)
                )
                texts = [
                    server.image_text(picture) if picture is not None else text
                    for text, picture in zip(inputs, images, strict=True)
                ]
                with server._lock:
                    number = len(server.requests) + 1
                    planned = server._planned.popleft() if server._planned else server.fail(number)
                    reply = _failure(planned, number) if isinstance(planned, int) else planned
                    server.requests.append(
                        Request(
                            number,
                            inputs,
                            reply.status if reply else 200,
                            str(body.get("model", "")),
                            self.headers.get("Authorization"),
                            embedded=reply is None,
                            images=tuple(i for i in images if i is not None),
                            peer=(str(self.client_address[0]), int(self.client_address[1])),
                            host=self.headers.get("Host", ""),
                        )
                    )
                if reply is not None:
                    self._answer(reply)
                    return
                time.sleep(server.delay_s)
                data = [
                    {"object": "embedding", "index": i, "embedding": vector(t)}
                    for i, t in enumerate(texts)
                ][::-1]
                answer = {"object": "list", "data": data, "model": body["model"]}
                self._answer(Reply(200, json.dumps(answer)))

            def do_GET(self) -> None:
                with server._lock:
                    server.paths.append(self.path)
                self.send_error(404)

            def _answer(self, reply: Reply) -> None:
                raw = reply.body.encode("utf-8")
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: object) -> None:
                pass

        super().__init__(_Handler, host, tls, port)
        # Embedders are cached per model key: each server gets a model name of its own.
        self.model = f"test-model-{self.port}"

    def __enter__(self) -> EmbeddingServer:
        return self

    @property
    def base_url(self) -> str:
        """What a client is configured with (it posts to ``{base_url}/embeddings``)."""
        return self.url("/v1")

    def plan(self, *replies: Reply) -> None:
        """Answer the next requests with ``replies``, in order, before ``fail`` is asked."""
        with self._lock:
            self._planned.extend(replies)

    def kb_config(self) -> dict[str, object]:
        """The knowledge-base "embedding" section that points at this server."""
        return {
            "provider": "openai",
            "model": self.model,
            "base_url": self.base_url,
            "dimensions": DIMENSION,
        }

    @property
    def model_key(self) -> str:
        return f"openai/{self.model}/{DIMENSION}"

    def embedded(self) -> list[str]:
        """Every input the server answered with a vector, in order."""
        with self._lock:
            return [t for r in self.requests if r.embedded for t in r.inputs]

    def log(self) -> list[Request]:
        with self._lock:
            return list(self.requests)
