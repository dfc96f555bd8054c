"""Traces across gRPC: a server span for every call a server answers (its parent taken from
the caller's ``traceparent`` metadata) and, on the worker's docreader channel, a CLIENT span
per call (workers.observability.tracing_client), so the docreader's span is its child.

The server interceptors come from opentelemetry-instrumentation-grpc, and only while tracing
is on (its factories carry no annotations, hence the ignores on their calls); the access log
(workers.observability.logging_access) is always there, inside the span.
"""

from __future__ import annotations

import grpc
from opentelemetry.instrumentation.grpc import aio_server_interceptor, server_interceptor

from workers.observability.logging_access import AccessLogInterceptor, AsyncAccessLogInterceptor
from workers.observability.tracing import tracing_enabled
from workers.observability.tracing_client import ClientSpanInterceptor


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


def traced_channel(channel: grpc.Channel, target: str) -> grpc.Channel:
    """``channel`` (to ``target``) with a CLIENT span per call (unchanged while off)."""
    if not tracing_enabled():
        return channel
    return grpc.intercept_channel(channel, ClientSpanInterceptor(target))
