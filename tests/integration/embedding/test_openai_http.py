"""OpenAIEmbedder against a real HTTP server speaking the OpenAI embeddings protocol, held to
the SSRF policy: the server on 127.0.0.1 is reached only through an allow-list entry naming
its port."""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from core.ssrf.url_policy import UrlPolicy
from tests.support.http_server import BackgroundHttpServer
from tests.support.processes import free_port
from tests.support.raw_server import RawTcpServer
from workers.embedding.base import (
    EmbeddingEndpointRefused,
    EmbeddingError,
    EmbeddingProviderError,
)
from workers.embedding.openai_http import OpenAIEmbedder

DIM = 8


def raw_vector(text: str) -> list[float]:
    """Deterministic, deliberately not normalised (norm > 1)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [float(b) / 16.0 + 1.0 for b in digest[:DIM]]


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


@dataclass
class Reply:
    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeOpenAI:
    """What the server saw, and replies to give before falling back to real embeddings."""

    url: str
    planned: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def plan(self, *replies: Reply) -> None:
        self.planned.extend(replies)


def make_handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with state.lock:
                state.requests.append(body)
                state.authorizations.append(self.headers.get("Authorization"))
                reply = state.planned.popleft() if state.planned else None
            if self.path != "/v1/embeddings":
                reply = Reply(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
            if reply is None:
                # Answer in reverse order: clients must sort by "index".
                data = [
                    {"object": "embedding", "index": i, "embedding": raw_vector(text)}
                    for i, text in enumerate(body["input"])
                ][::-1]
                reply = Reply(200, json.dumps({"object": "list", "data": data,
                                               "model": body["model"]}))
            payload = reply.body.encode("utf-8")
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    state = FakeOpenAI(url="")
    with BackgroundHttpServer(make_handler(state)) as server:
        state.url = server.url("/v1")
        yield state


def allowing(url: str) -> UrlPolicy:
    """The policy that lets the server at ``url`` (127.0.0.1:port) be reached."""
    return UrlPolicy(allow_hosts=frozenset({url.split("/")[2]}))


def client(server: FakeOpenAI, **options: Any) -> OpenAIEmbedder:
    defaults: dict[str, Any] = {
        "timeout": 5.0, "backoff_seconds": 0.01, "max_retries": 3, "policy": allowing(server.url)
    }
    return OpenAIEmbedder(server.url, "test-model", "secret-key", **{**defaults, **options})


def test_vectors_come_back_in_input_order_normalised_and_batched(server: FakeOpenAI) -> None:
    texts = [f"text number {i}" for i in range(5)]

    vectors = client(server, batch_size=2, dimension=DIM).embed_documents(texts)

    assert len(vectors) == 5
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(unit(raw_vector(text)))
    assert [r["input"] for r in server.requests] == [texts[0:2], texts[2:4], texts[4:5]]
    assert all(r["model"] == "test-model" for r in server.requests)
    assert server.authorizations == ["Bearer secret-key"] * 3


def test_no_api_key_sends_no_authorization(server: FakeOpenAI) -> None:
    OpenAIEmbedder(
        server.url + "/", "test-model", timeout=5.0, policy=allowing(server.url)
    ).embed_query("hello")
    assert server.authorizations == [None]


def test_dimension_is_discovered_from_the_first_response(server: FakeOpenAI) -> None:
    embedder = client(server)
    assert embedder.dimension == DIM
    assert embedder.model_key == f"openai/test-model/{DIM}"
    assert len(server.requests) == 1  # one probe, then remembered
    embedder.embed_query("something")
    assert embedder.dimension == DIM
    assert len(server.requests) == 2


def test_a_configured_dimension_is_checked(server: FakeOpenAI) -> None:
    embedder = client(server, dimension=16)
    assert embedder.model_key == "openai/test-model/16"
    with pytest.raises(EmbeddingProviderError, match="8-dimensional"):
        embedder.embed_query("hello")


def test_rate_limit_is_retried(server: FakeOpenAI) -> None:
    server.plan(Reply(429, '{"error": {"message": "slow down"}}', {"Retry-After": "0"}))

    vector = client(server).embed_query("hello")

    assert vector == pytest.approx(unit(raw_vector("hello")))
    assert len(server.requests) == 2


def test_server_errors_are_retried_then_reported(server: FakeOpenAI) -> None:
    server.plan(Reply(502, "bad gateway"), Reply(503, "unavailable"))
    assert client(server).embed_query("ok") == pytest.approx(unit(raw_vector("ok")))
    assert len(server.requests) == 3

    server.requests.clear()
    server.plan(*[Reply(500, "model crashed") for _ in range(5)])
    with pytest.raises(EmbeddingProviderError) as caught:
        client(server, max_retries=2).embed_query("boom")
    assert caught.value.status == 500
    assert "HTTP 500 Internal Server Error" in str(caught.value)
    assert "model crashed" not in str(caught.value)
    assert len(server.requests) == 3  # one attempt plus two retries


def test_client_errors_are_not_retried_and_keep_the_body_out_of_the_message(
    server: FakeOpenAI,
) -> None:
    body = '{"error": {"message": "This model\'s maximum context length is 8192 tokens"}}'
    server.plan(Reply(400, body))

    with pytest.raises(EmbeddingProviderError) as caught:
        client(server).embed_documents(["too long"])

    assert caught.value.status == 400
    assert caught.value.body == body  # for the log, never the error message
    assert "maximum context length" not in str(caught.value)
    assert "HTTP 400 Bad Request" in str(caught.value)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("<html>gateway</html>", "invalid JSON"),
        ('{"object": "list"}', "without a data list"),
        ('{"data": []}', "0 embeddings for 1 inputs"),
        ('{"data": [{"index": 0, "embedding": "abc"}]}', "without an embedding list"),
        ('{"data": [{"index": 3, "embedding": [1.0, 2.0]}]}', "bad or repeated index"),
        ('{"data": [{"index": 0, "embedding": [0.0, 0.0]}]}', "norm"),
    ],
)
def test_malformed_answers_are_errors(server: FakeOpenAI, body: str, message: str) -> None:
    server.plan(Reply(200, body))
    with pytest.raises(EmbeddingProviderError, match=message) as caught:
        client(server).embed_query("hello")
    assert len(server.requests) == 1
    assert "gateway" not in str(caught.value) and "abc" not in str(caught.value)


def test_a_wrong_path_is_a_clear_error(server: FakeOpenAI) -> None:
    embedder = OpenAIEmbedder(
        server.url.removesuffix("/v1"), "test-model", timeout=5.0, policy=allowing(server.url)
    )
    with pytest.raises(EmbeddingProviderError, match=r"/embeddings answered HTTP 404 Not Found"):
        embedder.embed_query("hello")


def test_an_unreachable_endpoint_fails_after_bounded_retries() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    embedder = OpenAIEmbedder(
        url, "m", timeout=2.0, max_retries=2, backoff_seconds=0.01, policy=allowing(url)
    )
    with pytest.raises(EmbeddingProviderError, match="after 3 attempts"):
        embedder.embed_query("hello")


def test_bad_construction_is_rejected() -> None:
    with pytest.raises(EmbeddingError):
        OpenAIEmbedder("", "m", policy=UrlPolicy())
    with pytest.raises(EmbeddingError):
        OpenAIEmbedder("http://127.0.0.1:1/v1", "m", batch_size=0, policy=UrlPolicy())


@pytest.mark.parametrize(
    ("policy", "rule"),
    [
        (UrlPolicy(), "127.0.0.1 is a loopback address"),
        # Allow-listed on another port only.
        (UrlPolicy(allow_hosts=frozenset({"127.0.0.1:1"})), "loopback"),
    ],
)
def test_a_refused_endpoint_gets_no_request_and_no_retry(
    server: FakeOpenAI, policy: UrlPolicy, rule: str
) -> None:
    embedder = client(server, policy=policy)
    with pytest.raises(EmbeddingEndpointRefused, match=f"refused by the SSRF policy: .*{rule}"):
        embedder.embed_documents(["secret text"])
    assert server.requests == []


def test_a_blocked_port_stays_blocked_for_a_host_entry(server: FakeOpenAI) -> None:
    port = int(server.url.split("/")[2].rsplit(":", 1)[1])
    host_only = UrlPolicy(allow_hosts=frozenset({"127.0.0.1"}), blocked_ports=frozenset({port}))
    with pytest.raises(EmbeddingEndpointRefused, match=f"port {port} is blocked"):
        client(server, policy=host_only).embed_query("hello")
    assert server.requests == []


def test_the_request_goes_to_the_address_the_policy_passed(server: FakeOpenAI) -> None:
    """models.test exists in no DNS: only the validated, pinned address can be reached."""
    authority = server.url.split("/")[2]
    port = authority.rsplit(":", 1)[1]
    resolved: list[str] = []

    def resolver(host: str, _port: int) -> list[str]:
        resolved.append(host)
        return ["127.0.0.1"]

    embedder = OpenAIEmbedder(
        f"http://models.test:{port}/v1", "test-model", timeout=5.0, resolver=resolver,
        policy=UrlPolicy(allow_hosts=frozenset({f"models.test:{port}"})),
    )
    assert embedder.embed_query("hello") == pytest.approx(unit(raw_vector("hello")))
    assert resolved == ["models.test"]
    # Not allow-listed, the same name is judged by what it resolves to.
    refused = OpenAIEmbedder(
        f"http://models.test:{port}/v1", "test-model", resolver=resolver, policy=UrlPolicy()
    )
    with pytest.raises(EmbeddingEndpointRefused, match=r"models\.test resolves to a loopback"):
        refused.embed_query("hello")
    assert len(server.requests) == 1


def test_an_endpoint_that_is_no_http_server_is_named_without_its_bytes() -> None:
    with RawTcpServer(b"-ERR SECRET-91c2 unknown command\r\n") as raw:
        url = f"http://127.0.0.1:{raw.port}/v1"
        embedder = OpenAIEmbedder(
            url, "m", timeout=2.0, max_retries=1, backoff_seconds=0.01, policy=allowing(url)
        )
        with pytest.raises(EmbeddingProviderError) as caught:
            embedder.embed_query("hello")
    assert "did not answer in HTTP" in str(caught.value)
    assert "SECRET" not in str(caught.value)
    assert len(raw.received) == 2 and raw.received[0].startswith(b"POST /v1/embeddings ")
