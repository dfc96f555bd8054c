"""The SSRF guard refuses every internal destination, and the fetcher only ever connects to
addresses the guard passed: redirects, sizes and time are bounded."""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from core.ssrf.guard import validate_url
from core.ssrf.hosts import SsrfBlocked
from core.ssrf.url_policy import UrlPolicy
from tests.support.http_server import RecordingServer, Reply
from tests.support.tls import tls_pair
from workers.net.safe_fetch import FetchError, fetch

REFUSED = [
    # scheme
    ("ftp://example.com/file", "scheme 'ftp'"),
    ("file:///etc/passwd", "scheme 'file'"),
    ("gopher://example.com:70/", "scheme 'gopher'"),
    ("//example.com/x", "scheme '(none)'"),
    # credentials, malformed hosts
    ("http://user:secret@8.8.8.8/", "credentials"),
    ("http://user@8.8.8.8/", "credentials"),
    ("http://8.8.8.8@127.0.0.1/", "credentials"),
    ("http://example.com@127.0.0.1/", "credentials"),
    ("http://127.0.0.1#@example.com/", "127.0.0.1 is a loopback"),
    ("http://127.0.0.1?@example.com/", "127.0.0.1 is a loopback"),
    ("http://127.0.0.1/#@example.com:80", "127.0.0.1 is a loopback"),
    ("http://evil.example\\@127.0.0.1/", "credentials"),
    ("http://127.0.0.1\\.evil.example/", "backslash"),
    ("http:///only/a/path", "no host"),
    ("http://exa mple.com/", "whitespace"),
    ("http://example.com\t/", "whitespace"),
    ("http://ex%61mple.com/", "invalid characters"),
    ("http://[::1/", "malformed URL"),
    ("http://8.8.8.8:99999/", "malformed URL"),
    # ports
    ("http://8.8.8.8:0/", "port 0"),
    ("http://8.8.8.8:22/", "port 22 is blocked"),
    ("https://8.8.8.8:6379/", "port 6379 is blocked"),
    ("http://8.8.8.8:2375/v1.40/containers/json", "port 2375 is blocked"),
    # IPv4, every spelling inet_aton reads
    ("http://127.0.0.1/", "loopback"),
    ("http://127.0.0.1./", "loopback"),
    ("http://2130706433/", "loopback"),
    ("http://0177.0.0.1/", "loopback"),
    ("http://0x7f.1/", "loopback"),
    ("http://0x7f000001/", "loopback"),
    ("http://127.1/", "loopback"),
    ("http://127.0.1/", "loopback"),
    ("http://0x7F.0x0.0x0.0x1/", "loopback"),
    ("http://127.000.000.001/", "loopback"),
    ("http://2130706433./", "loopback"),
    ("HTTP://127.0.0.1/", "loopback"),
    ("http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "127.0.0.1 is a loopback"),
    ("http://012.0.0.1/", "private"),
    ("http://10.1.2.3/", "private"),
    ("http://172.16.0.1/", "private"),
    ("http://172.31.255.255/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://100.64.0.1/", "carrier-grade NAT"),
    ("http://0.0.0.0/", "unspecified"),
    ("http://0/", "unspecified"),
    ("http://0.1.2.3/", "unspecified"),
    ("http://192.0.0.8/", "IETF protocol assignment"),
    ("http://198.18.0.1/", "benchmarking"),
    ("http://198.19.255.1/", "benchmarking"),
    ("http://192.0.2.1/", "documentation"),
    ("http://198.51.100.7/", "documentation"),
    ("http://203.0.113.9/", "documentation"),
    ("http://224.0.0.1/", "multicast"),
    ("http://239.255.255.250/", "multicast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://255.255.255.255/", "broadcast"),
    ("http://1.2.3.4.5/", "malformed IPv4"),
    ("http://08.0.0.1/", "malformed IPv4"),
    ("http://256.0.0.1/", "malformed IPv4"),
    ("http://1.2.3.0x100/", "malformed IPv4"),
    # IPv6, and IPv6 forms carrying an IPv4 address
    ("http://[::1]/", "loopback"),
    ("http://[::]/", "unspecified"),
    ("http://[::ffff:127.0.0.1]/", "IPv4-mapped address of 127.0.0.1, a loopback"),
    ("http://[::ffff:a9fe:a9fe]/", "IPv4-mapped address of 169.254.169.254"),
    ("http://[0:0:0:0:0:ffff:127.0.0.1]/", "IPv4-mapped address of 127.0.0.1"),
    ("http://[::ffff:0:a00:1]/", "IPv4-translated address of 10.0.0.1"),
    ("http://[::127.0.0.1]/", "IPv4-compatible"),
    ("http://[::8.8.8.8]/", "IPv4-compatible"),
    ("http://[64:ff9b::10.0.0.1]/", "NAT64 address of 10.0.0.1, a private"),
    ("http://[64:ff9b:1::1]/", "local-use NAT64"),
    ("http://[2002:7f00:1::]/", "6to4 address of 127.0.0.1"),
    ("http://[2002:c0a8:101::1]/", "6to4 address of 192.168.1.1"),
    ("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"),
    ("http://[fc00::1]/", "unique local"),
    ("http://[fd12:3456::1]/", "unique local"),
    ("http://[fe80::1]/", "link-local"),
    ("http://[fe80::1%25eth0]/", "carries a zone id"),
    ("http://[2607:f8b0::1%25eth0]/", "carries a zone id"),
    ("http://[fec0::1]/", "site-local"),
    ("http://[ff02::1]/", "multicast"),
    ("http://[2001:db8::1]/", "documentation"),
    ("http://[100::1]/", "discard-only"),
    ("http://[4000::1]/", "reserved"),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_every_internal_or_malformed_destination_is_refused_with_its_reason(
    url: str, reason: str
) -> None:
    with pytest.raises(SsrfBlocked) as refused:
        validate_url(url, UrlPolicy(), resolver=_no_dns)
    assert reason in refused.value.reason
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("http://8.8.8.8/a?b=1#frag", "8.8.8.8"),
        ("https://134744072/", "8.8.8.8"),
        ("http://[2606:4700:4700::1111]:8080/", "2606:4700:4700::1111"),
        ("http://[::ffff:8.8.8.8]/", "::ffff:808:808"),
        ("http://[64:ff9b::8.8.8.8]/", "64:ff9b::808:808"),
    ],
)
def test_public_literals_pass_and_name_the_address_to_connect_to(url: str, address: str) -> None:
    validated = validate_url(url, UrlPolicy(), resolver=_no_dns)
    assert validated.addresses == (address,)
    assert not validated.allow_listed


def test_the_request_target_keeps_path_and_query_but_not_the_fragment() -> None:
    validated = validate_url("http://8.8.8.8/a/b?c=1&d=2#frag", UrlPolicy(), resolver=_no_dns)
    assert (validated.target, validated.port, validated.scheme) == ("/a/b?c=1&d=2", 80, "http")
    assert validate_url("https://8.8.8.8", UrlPolicy(), resolver=_no_dns).target == "/"


MOSCOW = "%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0"


def test_non_ascii_paths_and_queries_are_percent_encoded_keeping_existing_escapes() -> None:
    """A request line is ASCII: the target and the normalized URL carry UTF-8 escapes, and
    escapes already there (or an odd "%" and the quotes) are left alone."""
    validated = validate_url(
        'https://Пример.РФ/wiki/Москва/%41%zz"?q=Москва&a=%20#Якорь',
        UrlPolicy(),
        resolver=lambda host, port: ["93.184.216.34"],
    )
    assert validated.host == "xn--e1afmkfd.xn--p1ai"
    assert validated.target == f'/wiki/{MOSCOW}/%41%zz"?q={MOSCOW}&a=%20'
    assert validated.normalized == f"https://xn--e1afmkfd.xn--p1ai{validated.target}"
    assert validated.normalized.isascii()
    with pytest.raises(SsrfBlocked, match="malformed URL"):
        validate_url("http://8.8.8.8/\ud800", UrlPolicy(), resolver=_no_dns)


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        ("HTTP://Example.COM:80/a/b?c=1#frag", "http://example.com/a/b?c=1"),
        ("https://example.com.:443", "https://example.com/"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("http://b\u00fccher.example/", "http://xn--bcher-kva.example/"),
        ("http://134744072/", "http://8.8.8.8/"),
        ("http://[2606:4700:4700:0:0:0:0:1111]:80/", "http://[2606:4700:4700::1111]/"),
        ("https://ru.wikipedia.org/wiki/Москва", f"https://ru.wikipedia.org/wiki/{MOSCOW}"),
        (f"https://ru.wikipedia.org/wiki/{MOSCOW}", f"https://ru.wikipedia.org/wiki/{MOSCOW}"),
    ],
)
def test_every_spelling_of_a_url_has_one_normalized_form(url: str, normalized: str) -> None:
    def public(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    assert validate_url(url, UrlPolicy(), resolver=public).normalized == normalized


def test_a_name_resolving_to_loopback_is_refused() -> None:
    with pytest.raises(SsrfBlocked) as refused:
        validate_url("http://localhost:8080/image.png", UrlPolicy())
    assert refused.value.reason == "localhost resolves to a loopback address"


def test_every_resolved_address_must_be_public_and_the_refusal_never_names_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Whoever asked for the URL learns the rule, not the internal address behind the name
    (which the server's log keeps)."""

    def resolver(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.0.0.5"]

    with pytest.raises(SsrfBlocked) as refused:
        validate_url("http://images.example/x.png", UrlPolicy(), resolver=resolver)
    assert refused.value.reason == "images.example resolves to a private address"
    assert "images.example resolves to 10.0.0.5, a private address" in caplog.text
    for answer, reason, logged in [
        ("::ffff:10.1.2.3", "an IPv4-mapped address of a private address", "of 10.1.2.3"),
        ("::10.1.2.3", "an IPv4-compatible address (deprecated)", "::a01:203"),
        ("not-an-address", "something that is not an IP address", "'not-an-address'"),
    ]:

        def internal(host: str, port: int, answer: str = answer) -> list[str]:
            return [answer]

        with pytest.raises(SsrfBlocked) as hidden:
            validate_url("http://db.internal/", UrlPolicy(), resolver=internal)
        assert hidden.value.reason == f"db.internal resolves to {reason}"
        assert logged in caplog.text

    def public(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "2606:2800:220:1::1", "93.184.216.34"]

    validated = validate_url("http://Images.Example./x.png", UrlPolicy(), resolver=public)
    assert validated.host == "images.example"
    assert validated.addresses == ("93.184.216.34", "2606:2800:220:1::1")


def test_a_name_that_does_not_resolve_is_refused() -> None:
    def resolver(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(SsrfBlocked, match="cannot be resolved"):
        validate_url("http://nowhere.example/", UrlPolicy(), resolver=resolver)


def test_allow_listed_hosts_skip_the_address_checks_only() -> None:
    def intranet(host: str, port: int) -> list[str]:
        return ["10.0.0.5"]

    policy = UrlPolicy(allow_hosts=frozenset({"Images.Intranet.", "127.0.0.1", "[::1]"}))
    validated = validate_url("http://images.intranet/a.png", policy, resolver=intranet)
    assert validated.allow_listed and validated.addresses == ("10.0.0.5",)
    assert validate_url("http://127.0.0.1:8080/", policy).addresses == ("127.0.0.1",)
    assert validate_url("http://2130706433:8080/", policy).addresses == ("127.0.0.1",)
    assert validate_url("http://[::1]:8080/", policy).addresses == ("::1",)
    # Allowed by spelling, never by what a name resolves to, and other rules still hold.
    for url, reason in [
        ("http://localhost:8080/", "loopback"),
        ("http://127.0.0.2:8080/", "loopback"),
        ("http://other.intranet/", "private"),
        ("http://127.0.0.1:22/", "port 22"),
        ("http://u:p@127.0.0.1/", "credentials"),
        ("ftp://127.0.0.1/", "scheme"),
    ]:
        with pytest.raises(SsrfBlocked, match=reason):
            validate_url(url, policy, resolver=intranet if "intranet" in url else None)


def test_policy_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="only http and https"):
        UrlPolicy(allowed_schemes=("http", "ftp"))
    with pytest.raises(ValueError, match="invalid allow-list entry"):
        UrlPolicy(allow_hosts=frozenset({"bad host"}))
    with pytest.raises(SsrfBlocked, match="scheme 'http' is not allowed"):
        validate_url("http://8.8.8.8/", UrlPolicy(allowed_schemes=("https",)))


def _no_dns(host: str, port: int) -> list[str]:
    raise AssertionError(f"an IP literal must not be resolved, got {host!r}")


# --- fetching from real local servers -------------------------------------------------------

Handler = Reply


def _local_server(routes: dict[str, Handler], tls: ssl.SSLContext | None = None) -> RecordingServer:
    """A real HTTP(S) server on 127.0.0.1 that records (path, Host) of every request."""
    return RecordingServer(routes, default=_reply(404, b"no such page"), tls=tls)


def _reply(status: int, body: bytes, headers: dict[str, str] | None = None) -> Handler:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in (headers or {"Content-Length": str(len(body))}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    return handle


def _redirect(location: str, status: int = 302) -> Handler:
    return _reply(status, b"", {"Location": location, "Content-Length": "0"})


def _dribble(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", "100")
    handler.end_headers()
    for _ in range(100):
        try:
            handler.wfile.write(b"x")
            handler.wfile.flush()
        except OSError:
            return
        time.sleep(0.1)


LOCAL = UrlPolicy(allow_hosts=frozenset({"127.0.0.1"}))


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    routes: dict[str, Handler] = {}
    local = _local_server(routes)
    routes.update(
        {
            "/image.png": _reply(
                200,
                b"\x89PNG" + b"0" * 100,
                {
                    "Content-Type": "image/png; charset=binary",
                    "Content-Length": "104",
                },
            ),
            "/to-image": _redirect("/image.png", 301),
            "/to-localhost": _redirect(local.url("/image.png", host="localhost")),
            "/to-metadata": _redirect("http://169.254.169.254/latest/meta-data/", 307),
            "/to-file": _redirect("file:///etc/passwd"),
            "/no-location": _reply(302, b"", {"Content-Length": "0"}),
            "/big": _reply(200, b"y" * 5000),
            "/big-unannounced": _reply(200, b"z" * 5000, {"Connection": "close"}),
            "/slow": _dribble,
            **{f"/hop/{n}": _redirect(f"/hop/{n - 1}" if n else "/image.png") for n in range(5)},
        }
    )
    yield local
    local.close()


def test_a_fetch_returns_the_body_type_and_final_url(server: RecordingServer) -> None:
    fetched = fetch(server.url("/to-image"), LOCAL, max_bytes=1000, timeout_s=5)
    assert fetched.data == b"\x89PNG" + b"0" * 100
    assert fetched.content_type == "image/png"
    assert fetched.final_url == server.url("/image.png")
    assert fetched.url == server.url("/to-image")
    assert server.requests == [
        ("/to-image", f"127.0.0.1:{server.port}"),
        ("/image.png", f"127.0.0.1:{server.port}"),
    ]


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/to-localhost", "localhost resolves to"),
        ("/to-metadata", "169.254.169.254 is a link-local address"),
        ("/to-file", "scheme 'file'"),
    ],
)
def test_a_redirect_to_a_refused_destination_is_refused_before_it_is_sent(
    server: RecordingServer, path: str, reason: str
) -> None:
    with pytest.raises(SsrfBlocked, match=reason):
        fetch(server.url(path), LOCAL, max_bytes=1000, timeout_s=5)
    assert [p for p, _ in server.requests] == [path], "nothing was sent after the redirect"


def test_redirects_are_bounded_by_the_policy(server: RecordingServer) -> None:
    three = UrlPolicy(allow_hosts=LOCAL.allow_hosts, max_redirects=3)
    with pytest.raises(FetchError, match="more than 3 redirects"):
        fetch(server.url("/hop/3"), three, max_bytes=1000, timeout_s=5)
    assert len(server.requests) == 4
    assert fetch(server.url("/hop/2"), three, max_bytes=1000, timeout_s=5).data.startswith(b"\x89")
    with pytest.raises(FetchError, match="more than 0 redirects"):
        fetch(
            server.url("/to-image"),
            UrlPolicy(allow_hosts=LOCAL.allow_hosts, max_redirects=0),
            max_bytes=1000,
            timeout_s=5,
        )


def test_the_body_is_capped(server: RecordingServer) -> None:
    with pytest.raises(FetchError, match="the body is 5000 bytes, over the 4096-byte cap"):
        fetch(server.url("/big"), LOCAL, max_bytes=4096, timeout_s=5)
    with pytest.raises(FetchError, match="over the 4096-byte cap"):
        fetch(server.url("/big-unannounced"), LOCAL, max_bytes=4096, timeout_s=5)
    assert len(fetch(server.url("/big"), LOCAL, max_bytes=5000, timeout_s=5).data) == 5000


def test_the_timeout_bounds_the_whole_fetch(server: RecordingServer) -> None:
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"timed out after 0\.5 s") as timed_out:
        fetch(server.url("/slow"), LOCAL, max_bytes=1000, timeout_s=0.5)
    assert time.monotonic() - started < 2
    # Past its whole budget a fetch is final: the next attempt would wait as long again.
    assert timed_out.value.permanent


def test_http_errors_and_bad_redirects_are_fetch_errors(server: RecordingServer) -> None:
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch(server.url("/missing"), LOCAL, max_bytes=1000, timeout_s=5)
    with pytest.raises(FetchError, match="without a Location"):
        fetch(server.url("/no-location"), LOCAL, max_bytes=1000, timeout_s=5)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    with pytest.raises(FetchError, match="ConnectionRefusedError"):
        fetch(f"http://127.0.0.1:{port}/", LOCAL, max_bytes=1000, timeout_s=5)


def test_https_goes_to_the_validated_address_but_verifies_the_host_name(tmp_path: Path) -> None:
    server_tls, client_tls = tls_pair(tmp_path, "images.test")
    local = _local_server({"/a.png": _reply(200, b"\x89PNG-over-tls")}, tls=server_tls)
    try:
        policy = UrlPolicy(allow_hosts=frozenset({"images.test", "other.test"}))

        def resolver(host: str, port: int) -> list[str]:
            return ["127.0.0.1"]

        fetched = fetch(
            local.url("/a.png", host="images.test", scheme="https"),
            policy,
            max_bytes=1000,
            timeout_s=5,
            resolver=resolver,
            tls=client_tls,
        )
        assert fetched.data == b"\x89PNG-over-tls"
        assert local.requests == [("/a.png", f"images.test:{local.port}")]
        # The same server under a name its certificate does not carry is not trusted.
        with pytest.raises(FetchError, match="certificate"):
            fetch(
                local.url("/a.png", host="other.test", scheme="https"),
                policy,
                max_bytes=1000,
                timeout_s=5,
                resolver=resolver,
                tls=client_tls,
            )
        assert len(local.requests) == 1
    finally:
        local.close()
