"""A failed fetch's error names what went wrong in our words: never the bytes the server
sent (a non-HTTP service's banner, a reason phrase), which would go back to the caller; and
the port rule holds on every hop."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

import pytest

from core.ssrf.hosts import SsrfBlocked
from core.ssrf.url_policy import UrlPolicy
from tests.support.http_server import RecordingServer
from tests.support.raw_server import RawTcpServer
from workers.net.safe_fetch import FetchError, fetch

SECRET = b"SECRET-7f3a"
LOCAL = UrlPolicy(allow_hosts=frozenset({"127.0.0.1"}))


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        # A gRPC (HTTP/2) server's settings frame, as Milvus' port sends.
        (b"\x00\x00\x06\x04\x00\x00\x00\x00\x00" + SECRET, "did not answer in HTTP"),
        (b"-ERR " + SECRET + b"\r\n", "did not answer in HTTP"),
        (b"HTTP/1.1 418 " + SECRET + b"\r\nContent-Length: 0\r\n\r\n", "HTTP 418 I'm a Teapot"),
        (b"HTTP/1.1 500 OK\r\nContent-Length: 20\r\n\r\n" + SECRET, "HTTP 500 Internal Server"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 90\r\n\r\n" + SECRET, "of the 90 bytes"),
        (b"HTTP/1.1 200 OK\r\nX: " + SECRET * 10000 + b"\r\n\r\n", "over the length limit"),
    ],
)
def test_no_byte_of_the_answer_reaches_the_error(answer: bytes, reason: str) -> None:
    with RawTcpServer(answer) as server, pytest.raises(FetchError) as caught:
        fetch(f"http://127.0.0.1:{server.port}/x", LOCAL, max_bytes=1 << 20, timeout_s=5)
    assert reason in caught.value.reason
    assert SECRET.decode() not in str(caught.value)
    assert server.received and server.received[0].startswith(b"GET /x HTTP/1.1")


def test_a_redirect_to_a_blocked_port_of_an_allowed_host_is_refused_before_it_is_sent() -> None:
    with RawTcpServer(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") as service:

        def to_service(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(302)
            handler.send_header("Location", f"http://127.0.0.1:{service.port}/admin")
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        host_only = UrlPolicy(
            allow_hosts=frozenset({"127.0.0.1"}), blocked_ports=frozenset({service.port})
        )
        # Listed with its port, the same hop is followed.
        opened = UrlPolicy(
            allow_hosts=frozenset({"127.0.0.1", f"127.0.0.1:{service.port}"}),
            blocked_ports=frozenset({service.port}),
        )
        origin = RecordingServer(default=to_service)
        try:
            with pytest.raises(SsrfBlocked, match=f"port {service.port} is blocked"):
                fetch(origin.url("/start"), host_only, max_bytes=1 << 10, timeout_s=5)
            assert origin.paths == ["/start"] and service.received == []
            fetched = fetch(origin.url("/start"), opened, max_bytes=1 << 10, timeout_s=5)
        finally:
            origin.close()
        assert fetched.data == b"ok" and len(service.received) == 1
