"""open_stream: a body handed over piece by piece, never past its cap, on a connection to the
address the guard validated — a second DNS answer (rebinding) never gets a request."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from core.ssrf.guard import validate_url
from core.ssrf.hosts import SsrfBlocked
from core.ssrf.url_policy import UrlPolicy
from tests.support.http_server import RecordingServer, Reply
from workers.net.safe_fetch import FetchError, open_stream

LOCAL = UrlPolicy(allow_hosts=frozenset({"127.0.0.1"}))
BODY = bytes(range(256)) * 1024  # 256 KiB: several pieces
MOSCOW = "%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0"
# Content-Type header → (media type, charset) as the response reports them.
CONTENT_TYPES = {
    "Text/HTML; Charset=UTF-8": ("text/html", "utf-8"),
    "text/html, text/plain": ("text/html", ""),
    "text/html, text/plain; charset=koi8-r": ("text/html", ""),
    'application/xhtml+xml; q=1; charset="ISO-8859-5"': ("application/xhtml+xml", "iso-8859-5"),
    "video": ("video", ""),
    "Audio ; charset=x": ("audio", "x"),
    "html": ("", ""),
    "text/": ("", ""),
    "text/html garbage": ("", ""),
    ";charset=utf-8": ("", ""),
}


def _reply(body: bytes, headers: dict[str, str]) -> Reply:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    return handle


def _raw_redirect(location: bytes) -> Reply:
    """A redirect whose Location is sent as these very bytes (raw UTF-8, say)."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        # send_header writes Latin-1: decoding the bytes so puts them on the wire unchanged.
        handler.send_header("Location", location.decode("latin-1"))
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return handle


def _status(code: int) -> Reply:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(code)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return handle


def _truncated(body: bytes, announced: int) -> Reply:
    """Announces ``announced`` bytes, sends ``body`` (fewer) and closes the connection."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(announced))
        handler.end_headers()
        handler.wfile.write(body)
        handler.close_connection = True

    return handle


def _truncated_chunked(body: bytes) -> Reply:
    """A chunked body whose connection closes before the last (empty) chunk."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.protocol_version = "HTTP/1.1"
        handler.send_response(200)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(body), body))
        handler.close_connection = True

    return handle


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    routes = {
        "/file.bin": _reply(
            BODY,
            {
                "Content-Type": "Application/Octet-Stream",
                "Content-Length": str(len(BODY)),
                "Content-Disposition": 'attachment; filename="data.bin"',
            },
        ),
        "/unannounced": _reply(BODY, {"Connection": "close"}),
        "/truncated": _truncated(BODY[:-5], len(BODY)),
        "/truncated-chunked": _truncated_chunked(BODY[:1000]),
        "/page": _reply(b"<p>hi</p>", {"Content-Type": 'text/html; charset="Windows-1251"'}),
        "/gone": _status(410),
        "/busy": _status(503),
        "/slow-down": _status(429),
        f"/wiki/{MOSCOW}?q={MOSCOW}": _reply(b"moscow", {"Content-Type": "text/html"}),
        "/to-moscow": _raw_redirect("/wiki/Москва?q=Москва".encode()),
        "/to-latin1": _raw_redirect("/caf\u00e9".encode("latin-1")),
        "/caf%E9": _reply(b"latin-1 path", {}),
        **{
            f"/type/{n}": _reply(b"x", {"Content-Type": header})
            for n, header in enumerate(CONTENT_TYPES)
        },
    }
    local = RecordingServer(routes, default=_status(404))
    yield local
    local.close()


def test_the_body_comes_in_pieces_with_the_headers_first(server: RecordingServer) -> None:
    with open_stream(server.url("/file.bin"), LOCAL, max_bytes=len(BODY), timeout_s=5) as response:
        assert (response.status, response.content_type, response.charset) == (
            200,
            "application/octet-stream",
            "",
        )
        assert response.content_disposition == 'attachment; filename="data.bin"'
        assert response.received == 0, "nothing is read before the caller asks"
        pieces = list(response.chunks())
    assert len(pieces) > 1 and max(len(p) for p in pieces) <= 64 * 1024
    assert b"".join(pieces) == BODY and response.received == len(BODY)
    with open_stream(server.url("/page"), LOCAL, max_bytes=100, timeout_s=5) as page:
        assert (page.content_type, page.charset) == ("text/html", "windows-1251")


def test_nothing_past_the_cap_is_handed_over(server: RecordingServer) -> None:
    cap = 100_000
    with (
        pytest.raises(FetchError, match=f"over the {cap}-byte cap") as refused,
        open_stream(server.url("/file.bin"), LOCAL, max_bytes=cap, timeout_s=5),
    ):
        pass  # an announced length over the cap is refused before the body is offered
    assert refused.value.permanent
    handed: list[bytes] = []
    with (
        pytest.raises(FetchError, match=f"the body is over the {cap}-byte cap") as over,
        open_stream(server.url("/unannounced"), LOCAL, max_bytes=cap, timeout_s=5) as response,
    ):
        handed.extend(response.chunks())
    assert over.value.permanent
    assert 0 < sum(map(len, handed)) <= cap


@pytest.mark.parametrize("path", ["/truncated", "/truncated-chunked"])
def test_a_body_cut_short_is_a_retryable_fetch_error_not_the_end(
    server: RecordingServer, path: str
) -> None:
    with (
        pytest.raises(FetchError) as broken,
        open_stream(server.url(path), LOCAL, max_bytes=len(BODY), timeout_s=5) as response,
    ):
        list(response.chunks())
    assert not broken.value.permanent, "a retry may get the whole body"
    if path == "/truncated":
        assert f"closed after {len(BODY) - 5} of the {len(BODY)} bytes" in broken.value.reason


def test_http_errors_say_whether_a_retry_could_help(server: RecordingServer) -> None:
    for path, permanent in (("/gone", True), ("/busy", False), ("/slow-down", False)):
        with (
            pytest.raises(FetchError, match="HTTP") as failed,
            open_stream(server.url(path), LOCAL, max_bytes=10, timeout_s=5),
        ):
            pass
        assert failed.value.permanent is permanent, path


def test_the_connection_goes_to_the_validated_answer_never_to_a_later_one(
    server: RecordingServer,
) -> None:
    """DNS rebinding: a name that answers a public address to the check and an internal one
    after it. The guard resolves once per hop and the socket is opened to what it validated,
    so a later answer is never used; a later check sees the new answer and refuses it."""
    answers = [["127.0.0.1"], ["10.20.30.40"]]
    asked: list[str] = []

    def changing(host: str, port: int) -> list[str]:
        asked.append(host)
        return answers[min(len(asked), len(answers)) - 1]

    pinned = UrlPolicy(allow_hosts=frozenset({"pinned.example"}))
    url = f"http://pinned.example:{server.port}/file.bin"
    with open_stream(url, pinned, max_bytes=len(BODY), timeout_s=5, resolver=changing) as got:
        assert b"".join(got.chunks()) == BODY
    assert asked == ["pinned.example"], "resolved once, by the guard"
    assert server.requests == [("/file.bin", f"pinned.example:{server.port}")]

    public_then_loopback = [["93.184.216.34"], ["127.0.0.1"]]
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return public_then_loopback[min(len(calls), 2) - 1]

    rebind_url = f"http://rebind.example:{server.port}/file.bin"
    assert validate_url(rebind_url, UrlPolicy(), resolver=rebinding).addresses == ("93.184.216.34",)
    refused = r"^rebind\.example resolves to a loopback address$"
    with (
        pytest.raises(SsrfBlocked, match=refused),
        open_stream(rebind_url, UrlPolicy(), max_bytes=10, timeout_s=5, resolver=rebinding),
    ):
        pass
    assert len(server.requests) == 1, "the rebound request never left"


def test_the_media_type_is_read_from_the_header_as_written(server: RecordingServer) -> None:
    """Not through email parsing, which turns "video" or a list of types into text/plain."""
    for n, expected in enumerate(CONTENT_TYPES.values()):
        with open_stream(server.url(f"/type/{n}"), LOCAL, max_bytes=10, timeout_s=5) as got:
            assert (got.content_type, got.charset) == expected, list(CONTENT_TYPES)[n]


def test_non_ascii_urls_and_redirects_go_out_percent_encoded(server: RecordingServer) -> None:
    """A page's own URL, and a Location sent as raw UTF-8 bytes, reach the server as UTF-8
    escapes; raw bytes that are not UTF-8 are escaped as they came."""
    encoded = f"/wiki/{MOSCOW}?q={MOSCOW}"
    with open_stream(server.url("/wiki/Москва?q=Москва"), LOCAL, max_bytes=10, timeout_s=5) as got:
        assert b"".join(got.chunks()) == b"moscow"
    with open_stream(server.url("/to-moscow"), LOCAL, max_bytes=10, timeout_s=5) as moved:
        assert b"".join(moved.chunks()) == b"moscow"
    with open_stream(server.url("/to-latin1"), LOCAL, max_bytes=20, timeout_s=5) as latin:
        assert b"".join(latin.chunks()) == b"latin-1 path"
    assert server.paths == [encoded, "/to-moscow", encoded, "/to-latin1", "/caf%E9"]


def test_what_http_client_cannot_send_is_a_permanent_fetch_error(server: RecordingServer) -> None:
    with (
        pytest.raises(FetchError, match="the request cannot be sent") as refused,
        open_stream(
            server.url("/page"),
            LOCAL,
            max_bytes=10,
            timeout_s=5,
            accept="text/html\r\nX-Injected: yes",
        ),
    ):
        pass
    assert refused.value.permanent
    assert server.requests == []


def test_limits_are_checked() -> None:
    for limits in (
        {"max_bytes": 0, "timeout_s": 1.0},
        {"max_bytes": 1, "timeout_s": 0.0},
        {"max_bytes": 1, "timeout_s": 1.0, "connect_timeout_s": 0.0},
    ):
        with (
            pytest.raises(ValueError, match="must be > 0"),
            open_stream("http://8.8.8.8/", LOCAL, **limits),  # type: ignore[arg-type]
        ):
            pass
