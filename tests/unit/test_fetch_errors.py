"""A failed fetch's error names what went wrong in our words: never the bytes the server
sent (a non-HTTP service's banner, a reason phrase), which would go back to the caller."""

from __future__ import annotations

import pytest

from tests.support.raw_server import RawTcpServer
from workers.net.safe_fetch import FetchError, fetch
from workers.net.ssrf import UrlPolicy

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
        (b"HTTP/1.1 200 OK\r\nContent-Length: 90\r\n\r\n" + SECRET, "before the whole body"),
        (b"HTTP/1.1 200 OK\r\nX: " + SECRET * 10000 + b"\r\n\r\n", "over the length limit"),
    ],
)
def test_no_byte_of_the_answer_reaches_the_error(answer: bytes, reason: str) -> None:
    with RawTcpServer(answer) as server, pytest.raises(FetchError) as caught:
        fetch(f"http://127.0.0.1:{server.port}/x", LOCAL, max_bytes=1 << 20, timeout_s=5)
    assert reason in caught.value.reason
    assert SECRET.decode() not in str(caught.value)
    assert server.received and server.received[0].startswith(b"GET /x HTTP/1.1")
