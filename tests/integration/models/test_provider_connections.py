"""The connections of model-provider calls (workers/net/pinned_client.py under every
provider), against real servers on loopback: each attempt goes to the address the SSRF guard
validated for it, kept-alive connections are reused only for that address, HTTPS checks the
endpoint's name, redirects are not followed, ``Retry-After`` is honoured, and an attempt ends
when its whole time is up, however a server drips its bytes or reads an upload."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.ssrf.guard import Resolver
from core.ssrf.url_policy import UrlPolicy
from tests.support.openai_embeddings import EmbeddingServer, Reply, vector
from tests.support.raw_server import RawTcpServer
from tests.support.tls import tls_pair
from workers.net.provider_endpoint import ProviderCallError, ProviderEndpoint
from workers.net.provider_http import RetryPolicy
from workers.net.retry_notices import RetryNotice, observe_retries

QUICK = RetryPolicy(max_retries=0, backoff_s=0.01, max_backoff_s=0.05)


def endpoint(
    url: str,
    *,
    policy: UrlPolicy | None = None,
    resolver: Resolver | None = None,
    timeout_s: float = 5.0,
    retry: RetryPolicy = QUICK,
    tls: ssl.SSLContext | None = None,
) -> ProviderEndpoint:
    host_port = url.split("/")[2]
    return ProviderEndpoint(
        url,
        kind="embedding",
        model="test-model",
        api_key="",
        policy=policy or UrlPolicy(allow_hosts=frozenset({host_port})),
        resolver=resolver,
        timeout_s=timeout_s,
        retry=retry,
        tls=tls,
    )


def embed(target: ProviderEndpoint, text: str) -> list[float]:
    answer = target.post_json({"model": "test-model", "input": [text]})
    return list(answer["data"][0]["embedding"])


@pytest.fixture
def kept_alive() -> Iterator[EmbeddingServer]:
    with EmbeddingServer(keep_alive=True) as server:
        yield server


def test_calls_reuse_a_kept_alive_connection(kept_alive: EmbeddingServer) -> None:
    models = endpoint(kept_alive.url("/v1/embeddings"))
    for number in range(3):
        assert embed(models, f"text {number}") == vector(f"text {number}")
    log = kept_alive.log()
    assert len(log) == 3
    assert len({request.peer for request in log}) == 1, "one connection for the three calls"


def test_each_attempt_goes_to_the_address_validated_for_it() -> None:
    """models.test is in no DNS: the test resolver answers 127.0.0.1, later 127.0.0.2. The
    call after the answer changed goes to the new address, not to the connection kept alive
    to the old one, and nothing but the guard ever resolves the name."""
    with (
        EmbeddingServer(keep_alive=True) as first,
        EmbeddingServer(host="127.0.0.2", port=first.port, keep_alive=True) as second,
    ):
        answers = iter(["127.0.0.1", "127.0.0.1", "127.0.0.2"])
        asked: list[str] = []

        def resolver(host: str, _port: int) -> list[str]:
            asked.append(host)
            return [next(answers)]

        url = f"http://models.test:{first.port}/v1/embeddings"
        models = endpoint(
            url,
            resolver=resolver,
            policy=UrlPolicy(allow_hosts=frozenset({f"models.test:{first.port}"})),
        )
        for number in range(3):
            assert embed(models, f"text {number}") == vector(f"text {number}")

        assert asked == ["models.test"] * 3, "resolved once per attempt, by the guard"
        assert [r.inputs for r in first.log()] == [("text 0",), ("text 1",)]
        assert len({r.peer for r in first.log()}) == 1
        assert [r.inputs for r in second.log()] == [("text 2",)]
        hosts = {r.host for r in first.log() + second.log()}
        assert hosts == {f"models.test:{first.port}"}, "the Host header names the host"


def test_a_second_address_is_tried_when_the_first_refuses_the_connection(
    kept_alive: EmbeddingServer,
) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.3", kept_alive.port))  # bound, not listening: refuses connections
    try:
        models = endpoint(
            f"http://models.test:{kept_alive.port}/v1/embeddings",
            resolver=lambda host, port: ["127.0.0.3", "127.0.0.1"],
            policy=UrlPolicy(allow_hosts=frozenset({f"models.test:{kept_alive.port}"})),
        )
        assert embed(models, "hello") == vector("hello")
    finally:
        closed.close()
    assert len(kept_alive.log()) == 1


def test_https_goes_to_the_validated_address_and_verifies_the_host_name(
    tmp_path: Path,
) -> None:
    server_tls, client_tls = tls_pair(tmp_path, "models.test")
    names: list[str | None] = []
    server_tls.sni_callback = lambda sock, name, context: names.append(name)
    with EmbeddingServer(tls=server_tls, keep_alive=True) as server:
        port = server.port
        policy = UrlPolicy(allow_hosts=frozenset({f"models.test:{port}", f"other.test:{port}"}))

        def resolver(host: str, _port: int) -> list[str]:
            return ["127.0.0.1"]

        models = endpoint(
            f"https://models.test:{port}/v1/embeddings",
            policy=policy,
            resolver=resolver,
            tls=client_tls,
        )
        assert embed(models, "hello") == vector("hello")
        assert names == ["models.test"], "SNI names the host, not the address"
        # The same server under a name its certificate does not carry is not trusted.
        other = endpoint(
            f"https://other.test:{port}/v1/embeddings",
            policy=policy,
            resolver=resolver,
            tls=client_tls,
        )
        with pytest.raises(ProviderCallError, match=r"TLS failed \(CERTIFICATE_VERIFY_FAILED\)"):
            embed(other, "hello")
        assert len(server.log()) == 1


def test_a_redirect_is_an_answer_not_followed(kept_alive: EmbeddingServer) -> None:
    kept_alive.plan(Reply(307, "", {"Location": kept_alive.url("/v1/embeddings")}))
    with pytest.raises(ProviderCallError, match="HTTP 307 Temporary Redirect") as caught:
        embed(endpoint(kept_alive.url("/v1/embeddings")), "hello")
    assert caught.value.status == 307
    assert len(kept_alive.log()) == 1


def test_retry_after_is_honoured(kept_alive: EmbeddingServer) -> None:
    kept_alive.plan(Reply(429, '{"error": {}}', {"Retry-After": "0.4"}))
    notices: list[RetryNotice] = []
    retrying = RetryPolicy(max_retries=2, backoff_s=0.01, max_backoff_s=5.0)
    started = time.monotonic()
    with observe_retries(notices.append):
        assert embed(endpoint(kept_alive.url("/v1/embeddings"), retry=retrying), "x") == vector("x")
    assert time.monotonic() - started >= 0.4
    assert [(n.error, n.delay_s) for n in notices] == [("HTTP 429 Too Many Requests", 0.4)]


@pytest.mark.parametrize(
    "answer",
    [
        # The status line and headers one byte at a time: no answer ever starts.
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
        # The headers at once (dripped too, but short), then a body that never ends in time.
        b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b" " * 5000,
    ],
    ids=["dripped headers", "dripped body"],
)
def test_a_dripping_server_cannot_hold_an_attempt_past_its_time(answer: bytes) -> None:
    with RawTcpServer(answer, drip_s=0.02) as dripping:
        url = f"http://127.0.0.1:{dripping.port}/v1/embeddings"
        started = time.monotonic()
        with pytest.raises(ProviderCallError, match=r"timed out after 0.5 s") as caught:
            embed(endpoint(url, timeout_s=0.5), "hello")
        elapsed = time.monotonic() - started
    # Every read had returned well within any per-read timeout: only the whole-attempt bound
    # ends it (the headers alone take 1.3 s to drip).
    assert 0.5 <= elapsed < 1.2
    assert caught.value.status is None


def test_a_server_that_never_reads_the_upload_cannot_hold_the_attempt() -> None:
    # Listening, never accepting: the kernel takes the connection and buffers what it can.
    with socket.create_server(("127.0.0.1", 0)) as stalled:
        url = f"http://127.0.0.1:{stalled.getsockname()[1]}/v1/audio/transcriptions"
        started = time.monotonic()
        with pytest.raises(ProviderCallError, match=r"timed out after 0.5 s"):
            endpoint(url, timeout_s=0.5).post(b"\0" * (16 << 20), "application/octet-stream")
        assert 0.5 <= time.monotonic() - started < 1.5


def test_a_server_reading_the_upload_slowly_cannot_hold_the_attempt() -> None:
    """Each send makes progress well within a per-operation timeout (64 KiB every 20 ms):
    only the whole-attempt bound ends an upload that would take a quarter of a minute."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        done = threading.Event()

        def read_slowly() -> None:
            conn, _ = listener.accept()
            with conn:
                while not done.wait(0.02) and conn.recv(65536):
                    pass

        reader = threading.Thread(target=read_slowly, daemon=True)
        reader.start()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1/audio/transcriptions"
        started = time.monotonic()
        try:
            with pytest.raises(ProviderCallError, match=r"timed out after 0.5 s"):
                endpoint(url, timeout_s=0.5).post(b"\0" * (48 << 20), "application/octet-stream")
            assert 0.5 <= time.monotonic() - started < 1.5
        finally:
            done.set()
            reader.join(5)
