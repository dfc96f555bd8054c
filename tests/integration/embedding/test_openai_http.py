"""OpenAIEmbedder against a real HTTP server speaking the OpenAI embeddings protocol, held to
the SSRF policy: the server on 127.0.0.1 is reached only through an allow-list entry naming
its port."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from core.ssrf.url_policy import UrlPolicy
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer, Reply, vector
from tests.support.processes import free_port
from tests.support.raw_server import RawTcpServer
from workers.embedding.base import (
    EmbeddingEndpointRefused,
    EmbeddingError,
    EmbeddingProviderError,
)
from workers.embedding.openai_http import OpenAIEmbedder


def unit(values: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in values))
    return [x / norm for x in values]


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


def allowing(url: str) -> UrlPolicy:
    """The policy that lets the server at ``url`` (127.0.0.1:port) be reached."""
    return UrlPolicy(allow_hosts=frozenset({url.split("/")[2]}))


def client(server: EmbeddingServer, **options: Any) -> OpenAIEmbedder:
    defaults: dict[str, Any] = {
        "timeout": 5.0,
        "backoff_seconds": 0.01,
        "max_retries": 3,
        "policy": allowing(server.base_url),
    }
    return OpenAIEmbedder(server.base_url, "test-model", "secret-key", **{**defaults, **options})


def test_vectors_come_back_in_input_order_normalised_and_batched(server: EmbeddingServer) -> None:
    texts = [f"text number {i}" for i in range(5)]

    vectors = client(server, batch_size=2, dimension=DIMENSION).embed_documents(texts)

    assert len(vectors) == 5
    for text, embedded in zip(texts, vectors, strict=True):
        assert embedded == pytest.approx(unit(vector(text)))
    log = server.log()
    assert [list(r.inputs) for r in log] == [texts[0:2], texts[2:4], texts[4:5]]
    assert all(r.model == "test-model" for r in log)
    assert [r.authorization for r in log] == ["Bearer secret-key"] * 3


def test_no_api_key_sends_no_authorization(server: EmbeddingServer) -> None:
    OpenAIEmbedder(
        server.base_url + "/", "test-model", timeout=5.0, policy=allowing(server.base_url)
    ).embed_query("hello")
    assert [r.authorization for r in server.log()] == [None]


def test_dimension_is_discovered_from_the_first_response(server: EmbeddingServer) -> None:
    embedder = client(server)
    assert embedder.dimension == DIMENSION
    assert embedder.model_key == f"openai/test-model/{DIMENSION}"
    assert len(server.log()) == 1  # one probe, then remembered
    embedder.embed_query("something")
    assert embedder.dimension == DIMENSION
    assert len(server.log()) == 2


def test_a_configured_dimension_is_checked(server: EmbeddingServer) -> None:
    embedder = client(server, dimension=16)
    assert embedder.model_key == "openai/test-model/16"
    with pytest.raises(EmbeddingProviderError, match="8-dimensional"):
        embedder.embed_query("hello")


def test_rate_limit_is_retried(server: EmbeddingServer) -> None:
    server.plan(Reply(429, '{"error": {"message": "slow down"}}', {"Retry-After": "0"}))

    embedded = client(server).embed_query("hello")

    assert embedded == pytest.approx(unit(vector("hello")))
    assert len(server.log()) == 2


def test_server_errors_are_retried_then_reported(server: EmbeddingServer) -> None:
    server.plan(Reply(502, "bad gateway"), Reply(503, "unavailable"))
    assert client(server).embed_query("ok") == pytest.approx(unit(vector("ok")))
    assert len(server.log()) == 3

    before = len(server.log())
    server.plan(*[Reply(500, "model crashed") for _ in range(5)])
    with pytest.raises(EmbeddingProviderError) as caught:
        client(server, max_retries=2).embed_query("boom")
    assert caught.value.status == 500
    assert "HTTP 500 Internal Server Error" in str(caught.value)
    assert "model crashed" not in str(caught.value)
    assert len(server.log()) - before == 3  # one attempt plus two retries


def test_client_errors_are_not_retried_and_keep_the_body_out_of_the_message(
    server: EmbeddingServer,
) -> None:
    body = '{"error": {"message": "This model\'s maximum context length is 8192 tokens"}}'
    server.plan(Reply(400, body))

    with pytest.raises(EmbeddingProviderError) as caught:
        client(server).embed_documents(["too long"])

    assert caught.value.status == 400
    assert caught.value.body == body  # for the log, never the error message
    assert "maximum context length" not in str(caught.value)
    assert "HTTP 400 Bad Request" in str(caught.value)
    assert len(server.log()) == 1


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
def test_malformed_answers_are_errors(server: EmbeddingServer, body: str, message: str) -> None:
    server.plan(Reply(200, body))
    with pytest.raises(EmbeddingProviderError, match=message) as caught:
        client(server).embed_query("hello")
    assert len(server.log()) == 1
    assert "gateway" not in str(caught.value) and "abc" not in str(caught.value)


def test_a_wrong_path_is_a_clear_error(server: EmbeddingServer) -> None:
    embedder = OpenAIEmbedder(
        server.url(), "test-model", timeout=5.0, policy=allowing(server.base_url)
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
    server: EmbeddingServer, policy: UrlPolicy, rule: str
) -> None:
    embedder = client(server, policy=policy)
    with pytest.raises(EmbeddingEndpointRefused, match=f"refused by the SSRF policy: .*{rule}"):
        embedder.embed_documents(["secret text"])
    assert server.log() == []


def test_a_blocked_port_stays_blocked_for_a_host_entry(server: EmbeddingServer) -> None:
    port = server.port
    host_only = UrlPolicy(allow_hosts=frozenset({"127.0.0.1"}), blocked_ports=frozenset({port}))
    with pytest.raises(EmbeddingEndpointRefused, match=f"port {port} is blocked"):
        client(server, policy=host_only).embed_query("hello")
    assert server.log() == []


def test_the_request_goes_to_the_address_the_policy_passed(server: EmbeddingServer) -> None:
    """models.test exists in no DNS: only the validated, pinned address can be reached."""
    port = server.port
    resolved: list[str] = []

    def resolver(host: str, _port: int) -> list[str]:
        resolved.append(host)
        return ["127.0.0.1"]

    embedder = OpenAIEmbedder(
        f"http://models.test:{port}/v1",
        "test-model",
        timeout=5.0,
        resolver=resolver,
        policy=UrlPolicy(allow_hosts=frozenset({f"models.test:{port}"})),
    )
    assert embedder.embed_query("hello") == pytest.approx(unit(vector("hello")))
    assert resolved == ["models.test"]
    # Not allow-listed, the same name is judged by what it resolves to.
    refused = OpenAIEmbedder(
        f"http://models.test:{port}/v1", "test-model", resolver=resolver, policy=UrlPolicy()
    )
    with pytest.raises(EmbeddingEndpointRefused, match=r"models\.test resolves to a loopback"):
        refused.embed_query("hello")
    assert len(server.log()) == 1


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
