"""The grpcio channel the client talks through: message limits, API key, default deadline
and, when asked for, TLS.

The generated stubs take neither metadata nor a timeout, so both are added by an interceptor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import grpc

if TYPE_CHECKING:
    # Typing-only names of types-grpcio: what a continuation returns.
    from grpc import _CallFuture, _CallIterator

MAX_MESSAGE_BYTES = 64 * 1024 * 1024

CHANNEL_OPTIONS = (
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
)

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")


@dataclass(frozen=True)
class _CallDetails(grpc.ClientCallDetails):
    method: str
    timeout: float | None
    metadata: tuple[tuple[str, str | bytes], ...] | None
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: grpc.Compression | None


class CallDefaults(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
):
    """Adds `authorization: Bearer <key>` to every call, and `timeout` as the deadline of
    calls that return one response. Server streams (WatchSpans) get no default deadline:
    they last as long as the work they follow, and their caller bounds them."""

    def __init__(self, api_key: str | None, timeout: float | None) -> None:
        self._metadata: tuple[tuple[str, str | bytes], ...] = (
            (("authorization", f"Bearer {api_key}"),) if api_key else ()
        )
        self._timeout = timeout

    def _details(self, details: grpc.ClientCallDetails, timeout: float | None) -> _CallDetails:
        return _CallDetails(
            method=details.method,
            timeout=details.timeout if details.timeout is not None else timeout,
            metadata=tuple(details.metadata or ()) + self._metadata,
            credentials=details.credentials,
            wait_for_ready=details.wait_for_ready,
            compression=details.compression,
        )

    def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.ClientCallDetails, _Request], _CallFuture[_Response]],
        client_call_details: grpc.ClientCallDetails,
        request: _Request,
    ) -> _CallFuture[_Response]:
        return continuation(self._details(client_call_details, self._timeout), request)

    def intercept_unary_stream(
        self,
        continuation: Callable[[grpc.ClientCallDetails, _Request], _CallIterator[_Response]],
        client_call_details: grpc.ClientCallDetails,
        request: _Request,
    ) -> _CallIterator[_Response]:
        return continuation(self._details(client_call_details, None), request)

    def intercept_stream_unary(
        self,
        continuation: Callable[
            [grpc.ClientCallDetails, Iterator[_Request]], _CallFuture[_Response]
        ],
        client_call_details: grpc.ClientCallDetails,
        request_iterator: Iterator[_Request],
    ) -> _CallFuture[_Response]:
        return continuation(self._details(client_call_details, self._timeout), request_iterator)


@dataclass(frozen=True)
class TlsOptions:
    """TLS to the server: ``ca_file`` (PEM) verifies it (None: the system's roots); for a
    server that requires client certificates, ``cert_file`` and ``key_file`` (PEM)."""

    ca_file: str | Path | None = None
    cert_file: str | Path | None = None
    key_file: str | Path | None = None

    def credentials(self) -> grpc.ChannelCredentials:
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("cert_file and key_file must be given together")
        ca, cert, key = (
            Path(path).read_bytes() if path is not None else None
            for path in (self.ca_file, self.cert_file, self.key_file)
        )
        return grpc.ssl_channel_credentials(ca, key, cert)


def open_channel(
    target: str,
    *,
    api_key: str | None,
    timeout: float | None,
    channel: grpc.Channel | None,
    tls: TlsOptions | None = None,
) -> tuple[grpc.Channel, grpc.Channel]:
    """(the channel to make calls on, the underlying channel to close or not)."""
    if channel is not None:
        base = channel
    elif tls is not None:
        base = grpc.secure_channel(target, tls.credentials(), CHANNEL_OPTIONS)
    else:
        base = grpc.insecure_channel(target, CHANNEL_OPTIONS)
    return grpc.intercept_channel(base, CallDefaults(api_key, timeout)), base
