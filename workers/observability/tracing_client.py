"""The CLIENT span of a gRPC call this process makes (the worker's calls to the docreader):
started on the caller's thread, as a child of whatever span is current there, sent in the
call's ``traceparent`` metadata (so the server's span is its child), and ended when the call
terminates, however that happens: its last message read, cancelled, failed or timed out.

Ours rather than opentelemetry-instrumentation-grpc's client interceptor: for a
server-streaming call that one returns a generator instead of the call (which the docreader
client cancels) and starts its span only when the generator is first read, on whichever
thread reads it. Here the call itself is returned, and the span ends from grpc's own
termination callback (``add_done_callback``), which fires on completion and cancel() alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import grpc
from opentelemetry import propagate, trace
from opentelemetry.semconv._incubating.attributes.rpc_attributes import (
    RPC_GRPC_STATUS_CODE,
    RPC_METHOD,
    RPC_SERVICE,
    RPC_SYSTEM,
)
from opentelemetry.semconv.attributes.server_attributes import SERVER_ADDRESS, SERVER_PORT
from opentelemetry.trace import SpanKind, Status, StatusCode


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: grpc.Compression | None


class _Details(_CallDetails, grpc.ClientCallDetails):
    """grpc.ClientCallDetails is an interface without a constructor: this is its value."""


def _server_attributes(target: str) -> dict[str, str | int]:
    """``host:port`` (a ``dns:`` or ``ipv4:`` scheme dropped) as server.address/port."""
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        return {SERVER_ADDRESS: target}
    host = host.partition(":")[2] if host.startswith(("dns:", "ipv4:", "ipv6:")) else host
    return {SERVER_ADDRESS: host.strip("[]/"), SERVER_PORT: int(port)}


class ClientSpanInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """A CLIENT span per call on a channel to ``target`` (from the global tracer provider
    unless one is given)."""

    def __init__(self, target: str, provider: trace.TracerProvider | None = None) -> None:
        self._server = _server_attributes(target)
        self._tracer = trace.get_tracer(__name__, tracer_provider=provider)

    def _traced(
        self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        service, _, method = details.method.lstrip("/").partition("/")
        attributes: dict[str, str | int] = {
            RPC_SYSTEM: "grpc",
            RPC_SERVICE: service,
            RPC_METHOD: method,
            **self._server,
        }
        span = self._tracer.start_span(
            f"{service}/{method}", kind=SpanKind.CLIENT, attributes=attributes
        )
        carrier: dict[str, str] = {}
        propagate.inject(carrier, context=trace.set_span_in_context(span))
        sent = _Details(
            details.method,
            details.timeout,
            [*(details.metadata or ()), *carrier.items()],
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )
        try:
            call = continuation(sent, request)
        except BaseException as exc:  # grpc itself failed to start the call
            span.record_exception(exc)
            span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            span.end()
            raise

        # Every call grpc hands back here is also a grpc.Future; one already done (a unary
        # call, or one that failed at once) runs the callback now.
        call.add_done_callback(lambda done: _end(span, done))
        return call

    def intercept_unary_unary(
        self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        return self._traced(continuation, details, request)

    def intercept_unary_stream(
        self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        return self._traced(continuation, details, request)

    def intercept_stream_unary(
        self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, requests: Any
    ) -> Any:
        return self._traced(continuation, details, requests)

    def intercept_stream_stream(
        self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, requests: Any
    ) -> Any:
        return self._traced(continuation, details, requests)


def _end(span: trace.Span, call: Any) -> None:
    """The span's status from the call's gRPC code (any code but OK is an error for a
    client, per the RPC semantic conventions), then its end."""
    code = call.code()
    span.set_attribute(RPC_GRPC_STATUS_CODE, code.value[0])
    if code is not grpc.StatusCode.OK:
        details = call.details()
        span.set_status(
            Status(StatusCode.ERROR, f"{code.name}: {details}" if details else code.name)
        )
    span.end()
