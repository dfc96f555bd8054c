"""GET a URL under an SSRF policy: connect only to validated addresses, bounded in every way.

Each hop is validated by ``ssrf.validate_url`` and the socket is opened to the addresses it
returned — never to a fresh DNS answer — while HTTPS still verifies the certificate of the
host the URL names (SNI and hostname check use the name, not the IP) and the Host header
carries the name. Redirects are followed by hand so every Location is validated before
anything is sent to it, at most ``policy.max_redirects`` of them. The body is read in
pieces up to ``max_bytes`` (an announced Content-Length over the cap is refused before
reading), and ``timeout_s`` bounds the whole fetch, redirects included: a watchdog shuts the
socket down when time is up, so a server dribbling bytes cannot hold a worker.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urljoin

from workers.net.ssrf import Resolver, UrlPolicy, ValidatedUrl, validate_url

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_READ_SIZE = 64 * 1024
USER_AGENT = "sluice-fetch/1.0"


class FetchError(ValueError):
    """The fetch failed for a reason other than the SSRF policy (HTTP status, size, time...)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class FetchedResource:
    url: str
    final_url: str
    content_type: str
    data: bytes


def fetch(
    url: str,
    policy: UrlPolicy,
    *,
    max_bytes: int,
    timeout_s: float,
    accept: str = "*/*",
    resolver: Resolver | None = None,
    tls: ssl.SSLContext | None = None,
) -> FetchedResource:
    """The body of a 200 response to GET ``url``; SsrfBlocked or FetchError otherwise.

    ``tls`` replaces the default verifying context (an internal CA, say); ``resolver`` the
    system resolver."""
    if max_bytes <= 0 or timeout_s <= 0:
        raise ValueError("max_bytes and timeout_s must be > 0")
    deadline = _Deadline(timeout_s)
    current = url
    for _hop in range(policy.max_redirects + 1):
        target = validate_url(current, policy, resolver=resolver)
        connection = _connection(target, deadline.remaining(), tls)
        with _Watchdog(connection, deadline):
            try:
                response = _send(connection, target, accept, deadline)
                if response.status in _REDIRECTS:
                    location = response.getheader("Location")
                    if not location:
                        raise FetchError(f"HTTP {response.status} redirect without a Location")
                    current = urljoin(current, location.strip())
                    continue
                if response.status != 200:
                    raise FetchError(f"HTTP {response.status} {response.reason}".strip())
                data = _read_body(response, max_bytes, deadline)
                content_type = response.getheader("Content-Type", "") or ""
            except (OSError, http.client.HTTPException) as exc:
                deadline.check()
                raise FetchError(f"{target.host}: {type(exc).__name__}: {exc}") from exc
            finally:
                connection.close()
        return FetchedResource(url, current, content_type.split(";")[0].strip().lower(), data)
    raise FetchError(f"more than {policy.max_redirects} redirects")


class _Deadline:
    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._end = time.monotonic() + timeout_s

    def left(self) -> float:
        return self._end - time.monotonic()

    def check(self) -> None:
        if self.left() <= 0:
            raise FetchError(f"timed out after {self.timeout_s:g} s")

    def remaining(self) -> float:
        self.check()
        return self.left()


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Talks to ``host`` (Host header) over a socket opened to the validated addresses."""

    def __init__(self, target: ValidatedUrl, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._addresses = target.addresses

    def connect(self) -> None:
        self.sock = _open_socket(self._addresses, self.port, self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """Like _PinnedHTTPConnection, with TLS verified against the host name, not the IP."""

    def __init__(self, target: ValidatedUrl, timeout: float, tls: ssl.SSLContext) -> None:
        self._tls = tls
        super().__init__(target.host, target.port, timeout=timeout, context=self._tls)
        self._addresses = target.addresses

    def connect(self) -> None:
        raw = _open_socket(self._addresses, self.port, self.timeout)
        try:
            self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


@functools.cache
def _default_tls() -> ssl.SSLContext:
    """Built once: loading the system's CA certificates costs ~20 ms per context."""
    return ssl.create_default_context()


def _connection(
    target: ValidatedUrl, timeout: float, tls: ssl.SSLContext | None
) -> http.client.HTTPConnection:
    if target.scheme == "https":
        return _PinnedHTTPSConnection(target, timeout, tls or _default_tls())
    return _PinnedHTTPConnection(target, timeout)


def _open_socket(addresses: tuple[str, ...], port: int, timeout: float | None) -> socket.socket:
    """A TCP connection to the first validated address that answers."""
    last_error: OSError | None = None
    for address in addresses:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect((address, port))
        except OSError as exc:
            sock.close()
            last_error = exc
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
    raise last_error or OSError("no address to connect to")


def _send(
    connection: http.client.HTTPConnection, target: ValidatedUrl, accept: str, deadline: _Deadline
) -> http.client.HTTPResponse:
    connection.timeout = deadline.remaining()
    connection.request(
        "GET",
        target.target,
        headers={
            "Accept": accept,
            "Accept-Encoding": "identity",
            "User-Agent": USER_AGENT,
            "Connection": "close",
        },
    )
    return connection.getresponse()


def _read_body(response: http.client.HTTPResponse, max_bytes: int, deadline: _Deadline) -> bytes:
    announced = response.getheader("Content-Length")
    if announced and announced.strip().isdigit() and int(announced) > max_bytes:
        raise FetchError(f"the body is {int(announced)} bytes, over the {max_bytes}-byte cap")
    body = bytearray()
    while True:
        deadline.check()
        # One bounded read at a time, so the deadline is checked between them; never more
        # than one byte past the cap, which is enough to know the cap was exceeded.
        piece = response.read1(min(_READ_SIZE, max_bytes + 1 - len(body)))
        if not piece:
            deadline.check()  # a watchdog shutdown looks like the end of the body
            return bytes(body)
        body += piece
        if len(body) > max_bytes:
            raise FetchError(f"the body is over the {max_bytes}-byte cap")


class _Watchdog:
    """Shuts the connection's socket down when the deadline passes, which unblocks any read."""

    def __init__(self, connection: http.client.HTTPConnection, deadline: _Deadline) -> None:
        self._connection = connection
        self._timer = threading.Timer(max(deadline.left(), 0.0), self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        sock = self._connection.sock
        if sock is not None:
            # Already closed means nothing is left to unblock. The plain socket's shutdown
            # even under TLS: SSLSocket.shutdown would drop the TLS state under the reader.
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()
