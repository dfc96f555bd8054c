"""A connection to exactly the addresses the SSRF guard validated: the socket is opened to
``ValidatedUrl.addresses`` — never to a fresh DNS answer, so a second answer cannot swap in an
internal address (DNS rebinding) — while HTTPS verifies the certificate of the host the URL
names (SNI and hostname check use the name, not the IP) and the Host header carries the name.
The fetcher's (safe_fetch), with the watchdog that ends a request when its time is up; model
providers get the same guarantees over httpx from pinned_client.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import socket
import ssl
import threading

from core.ssrf.guard import ValidatedUrl


class PinnedHTTPConnection(http.client.HTTPConnection):
    """Talks to ``host`` (Host header) over a socket opened to the validated addresses."""

    def __init__(self, target: ValidatedUrl, timeout: float, connect_timeout: float | None) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._addresses = target.addresses
        self._connect_timeout = connect_timeout

    def connect(self) -> None:
        self.sock = open_socket(self._addresses, self.port, self.timeout, self._connect_timeout)


class PinnedHTTPSConnection(http.client.HTTPSConnection):
    """Like PinnedHTTPConnection, with TLS verified against the host name, not the IP."""

    def __init__(
        self,
        target: ValidatedUrl,
        timeout: float,
        connect_timeout: float | None,
        tls: ssl.SSLContext,
    ) -> None:
        self._tls = tls
        super().__init__(target.host, target.port, timeout=timeout, context=self._tls)
        self._addresses = target.addresses
        self._connect_timeout = connect_timeout

    def connect(self) -> None:
        raw = open_socket(self._addresses, self.port, self.timeout, self._connect_timeout)
        try:
            self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


@functools.cache
def default_tls() -> ssl.SSLContext:
    """Built once: loading the system's CA certificates costs ~20 ms per context."""
    return ssl.create_default_context()


def pinned_connection(
    target: ValidatedUrl,
    timeout: float,
    connect_timeout: float | None,
    tls: ssl.SSLContext | None,
) -> http.client.HTTPConnection:
    if target.scheme == "https":
        return PinnedHTTPSConnection(target, timeout, connect_timeout, tls or default_tls())
    return PinnedHTTPConnection(target, timeout, connect_timeout)


def open_socket(
    addresses: tuple[str, ...], port: int, timeout: float | None, connect_timeout: float | None
) -> socket.socket:
    """A TCP connection to the first validated address that answers."""
    if connect_timeout is not None and timeout is not None:
        connect_timeout = min(connect_timeout, timeout)
    last_error: OSError | None = None
    for address in addresses:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout if connect_timeout is None else connect_timeout)
            sock.connect((address, port))
            sock.settimeout(timeout)
        except OSError as exc:
            sock.close()
            last_error = exc
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
    raise last_error or OSError("no address to connect to")


class Watchdog:
    """Shuts the connection's socket down ``seconds`` from now, which unblocks any read."""

    def __init__(self, connection: http.client.HTTPConnection, seconds: float) -> None:
        self._connection = connection
        self._timer = threading.Timer(max(seconds, 0.0), self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        sock = self._connection.sock
        if sock is not None:
            # Already closed means nothing is left to unblock. The plain socket's shutdown
            # even under TLS: SSLSocket.shutdown would drop the TLS state under the reader.
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()
