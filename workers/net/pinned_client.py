"""An httpx client for one model endpoint that only ever connects to the addresses the SSRF
guard validated for the attempt at hand, verifies TLS against the endpoint's host name, and
ends each attempt when its whole time is up.

httpx builds the request and reads the answer; httpcore's connection pool speaks HTTP/1.1 on
kept-alive connections and its ``SyncBackend`` opens the sockets. What is ours:

- The URL of each attempt names a validated address, not the host (``https://203.0.113.7/…``)
  with the host in the Host header and in httpcore's ``sni_hostname`` extension, which TLS
  uses for SNI and the certificate check. So nothing resolves a name after the guard, and the
  pool, which keys its connections by the URL's origin, reuses a kept-alive connection only
  for an address the current attempt validated (a client serves one endpoint, so one host:
  a connection made for one name never carries a request for another).
- ``_BoundedBackend`` connects only to an address of the current attempt (a second fence)
  and gives every connect, TLS handshake, read and write only the time left to the attempt:
  httpx's timeouts are per operation, so a server dripping one byte at a time would
  otherwise hold an attempt for ever. httpcore does its I/O in the calling thread, which is
  how the attempt (a context variable) reaches the streams of pooled connections.
"""

from __future__ import annotations

import contextlib
import functools
import os
import ssl
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from core.ssrf.guard import ValidatedUrl

# Sent in pieces of at most one TLS record, each with the time left: one send can then not
# outlast the attempt by waiting on a peer that reads slowly.
_WRITE_PIECE = 16 * 1024


@dataclass(frozen=True)
class _Attempt:
    addresses: frozenset[str]
    deadline: float

    def time_left(self, timeout: float | None, expired: type[httpcore.TimeoutException]) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise expired("the attempt's time is up")
        return left if timeout is None else min(timeout, left)


_ATTEMPT: ContextVar[_Attempt | None] = ContextVar("sluice_provider_attempt", default=None)


def _current_attempt() -> _Attempt:
    attempt = _ATTEMPT.get()
    if attempt is None:
        raise httpcore.ConnectError("no validated attempt is in progress")
    return attempt


class _BoundedStream(httpcore.NetworkStream):
    """A connection whose every operation ends by the deadline of the attempt using it."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        left = _current_attempt().time_left(timeout, httpcore.ReadTimeout)
        return self._inner.read(max_bytes, left)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        attempt = _current_attempt()
        for start in range(0, len(buffer), _WRITE_PIECE):
            left = attempt.time_left(timeout, httpcore.WriteTimeout)
            self._inner.write(buffer[start : start + _WRITE_PIECE], left)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = _current_attempt().time_left(timeout, httpcore.ConnectTimeout)
        return _BoundedStream(self._inner.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _BoundedBackend(httpcore.NetworkBackend):
    """httpcore's own backend, held to the current attempt's addresses and deadline."""

    def __init__(self) -> None:
        self._sockets = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        attempt = _current_attempt()
        if host not in attempt.addresses:
            raise httpcore.ConnectError("not an address the SSRF guard validated")
        left = attempt.time_left(timeout, httpcore.ConnectTimeout)
        stream = self._sockets.connect_tcp(host, port, left, local_address, socket_options)
        return _BoundedStream(stream)


# Most specific first, as httpx's own transport maps them.
_HTTPX_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
)


@contextlib.contextmanager
def _as_httpx_errors() -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        for core_error, httpx_error in _HTTPX_ERRORS:
            if isinstance(exc, core_error):
                raise httpx_error(str(exc)) from exc
        raise


class _AnswerStream(httpx.SyncByteStream):
    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        with _as_httpx_errors():
            yield from self._chunks

    def close(self) -> None:
        close = getattr(self._chunks, "close", None)
        if close is not None:
            with _as_httpx_errors():
                close()


class _PinnedTransport(httpx.BaseTransport):
    """httpx's request and answer over httpcore's pool on the bounded backend (what
    httpx.HTTPTransport does, which takes no network backend)."""

    def __init__(self, tls: ssl.SSLContext) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=tls,
            # In-flight calls are capped by the model's concurrency limit, not here.
            max_connections=None,
            network_backend=_BoundedBackend(),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.SyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors():
            answer = self._pool.handle_request(core_request)
        assert isinstance(answer.stream, Iterable)
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_AnswerStream(answer.stream),
            extensions=answer.extensions,
        )

    def close(self) -> None:
        self._pool.close()


@functools.cache
def _default_tls() -> ssl.SSLContext:
    """The system's CAs, loaded once; not the fetcher's context, since httpcore sets ALPN on
    the context it is given."""
    return ssl.create_default_context()


class PinnedClient:
    """Thread-safe. One per endpoint, so for one host (its pool tells connections apart by
    address only); the pool keeps them alive between calls."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self._tls = tls
        self._lock = threading.Lock()
        self._pid = 0
        self._client: httpx.Client | None = None

    def post(
        self, target: ValidatedUrl, data: bytes, headers: Mapping[str, str], timeout_s: float
    ) -> httpx.Response:
        """The answer to POST ``data`` to ``target`` (read whole), at the first validated
        address that takes the connection, within ``timeout_s`` in all; redirects are not
        followed. httpx.TransportError when no answer came."""
        client = self._process_client()
        request_headers = {**headers, "Host": urlsplit(target.normalized).netloc}

        def send(address: str) -> httpx.Response:
            url = httpx.URL(
                scheme=target.scheme,
                host=address,
                port=target.port,
                raw_path=target.target.encode("ascii"),
            )
            return client.post(
                url,
                content=data,
                headers=request_headers,
                timeout=timeout_s,
                extensions={"sni_hostname": target.host},
            )

        *fallbacks, last = target.addresses
        deadline = time.monotonic() + timeout_s
        token = _ATTEMPT.set(_Attempt(frozenset(target.addresses), deadline))
        try:
            for address in fallbacks:
                with contextlib.suppress(httpx.ConnectError, httpx.ConnectTimeout):
                    return send(address)
            return send(last)
        finally:
            _ATTEMPT.reset(token)

    def _process_client(self) -> httpx.Client:
        # A process forked after this one made its pool gets a pool of its own: the parent's
        # connections are dropped there, not closed (that would end them for the parent too).
        with self._lock:
            if self._client is None or self._pid != os.getpid():
                transport = _PinnedTransport(self._tls or _default_tls())
                self._client = httpx.Client(transport=transport, follow_redirects=False)
                self._pid = os.getpid()
            return self._client
