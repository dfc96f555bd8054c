"""Traces across gRPC: a server span for every call a server answers (its parent taken from
the caller's ``traceparent`` metadata) and, on the worker's docreader channel, the caller's
context sent in that metadata, so the docreader's span is a child of the worker's stage.

The server interceptors come from opentelemetry-instrumentation-grpc, and only while tracing
is on (its factories carry no annotations, hence the ignores on their calls); the access log
(workers.observability.logging_access) is always there, inside the span. Its client
interceptor is not used: for a server-streaming call it returns a generator instead of the
call (which the docreader client cancels) and starts its span only when that generator is
first read, on whichever thread reads it, so the context is injected here, at the call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import grpc
from opentelemetry import propagate
from opentelemetry.instrumentation.grpc import aio_server_interceptor, server_interceptor

from workers.observability.logging_access import AccessLogInterceptor, AsyncAccessLogInterceptor
from workers.observability.tracing import tracing_enabled


def aio_server_interceptors() -> list[grpc.aio.ServerInterceptor]:
    """For a grpc.aio server, ahead of its own interceptors: the span, then the access log."""
    if tracing_enabled():
        return [aio_server_interceptor(), AsyncAccessLogInterceptor()]  # type: ignore[no-untyped-call]
    return [AsyncAccessLogInterceptor()]


def server_interceptors() -> list[grpc.ServerInterceptor]:
    """The same for a thread-pool grpc server."""
    if tracing_enabled():
        return [server_interceptor(), AccessLogInterceptor()]  # type: ignore[no-untyped-call]
    return [AccessLogInterceptor()]


def traced_channel(channel: grpc.Channel) -> grpc.Channel:
    """``channel`` with the caller's trace context on every call (unchanged while off)."""
    if not tracing_enabled():
        return channel
    return grpc.intercept_channel(channel, TraceContextClientInterceptor())


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: grpc.Compression | None


class _Details(_CallDetails, grpc.ClientCallDetails):
    """grpc.ClientCallDetails is an interface without a constructor: this is its value."""


def _with_context(details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    if not carrier:
        return details
    return _Details(
        details.method,
        details.timeout,
        [*(details.metadata or ()), *carrier.items()],
        details.credentials,
        getattr(details, "wait_for_ready", None),
        getattr(details, "compression", None),
    )


class TraceContextClientInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds ``traceparent`` (and ``tracestate``) to the metadata of each call it starts."""

    def intercept_unary_unary(
        self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        return continuation(_with_context(details), request)

    def intercept_unary_stream(
        self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        return continuation(_with_context(details), request)

    def intercept_stream_unary(
        self,
        continuation: Callable[..., Any],
        details: grpc.ClientCallDetails,
        requests: Iterator[Any],
    ) -> Any:
        return continuation(_with_context(details), requests)

    def intercept_stream_stream(
        self,
        continuation: Callable[..., Any],
        details: grpc.ClientCallDetails,
        requests: Iterator[Any],
    ) -> Any:
        return continuation(_with_context(details), requests)
