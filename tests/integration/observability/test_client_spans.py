"""The CLIENT span interceptor on a real gRPC channel and server: one span per call, named and
attributed per the RPC semantic conventions, its status from the gRPC code, ended when a
server stream ends, is cancelled (cancel() still reaching the server) or fails, and the
parent of the server's span (opentelemetry-instrumentation-grpc's, as the docreader has)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from opentelemetry.instrumentation.grpc import server_interceptor
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from workers.observability.tracing_client import ClientSpanInterceptor

SERVICE = "test.Reader"


class _Server:
    """A thread-pool server with a unary and a server-streaming method; ``Stream`` sends one
    message, then waits for ``release`` (or the call's end) before its second."""

    def __init__(self, provider: TracerProvider) -> None:
        self.release = threading.Event()
        self.cancelled = threading.Event()
        self.server = grpc.server(
            ThreadPoolExecutor(4),
            interceptors=[server_interceptor(tracer_provider=provider)],  # type: ignore[no-untyped-call]
        )
        self.server.add_generic_rpc_handlers((self._handlers(),))
        self.port = self.server.add_insecure_port("127.0.0.1:0")

    def _handlers(self) -> grpc.GenericRpcHandler:
        def unary(request: bytes, context: grpc.ServicerContext) -> bytes:
            if request == b"missing":
                context.abort(grpc.StatusCode.NOT_FOUND, "no such thing")
            return request

        def stream(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
            context.add_callback(self.cancelled.set)
            yield b"first"
            while not self.release.wait(0.05):
                if not context.is_active():
                    return
            if request == b"fail":
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "enough")
            yield b"second"

        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Unary": grpc.unary_unary_rpc_method_handler(unary),
                "Stream": grpc.unary_stream_rpc_method_handler(stream),
            },
        )


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


@pytest.fixture
def served(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> Iterator[tuple[_Server, grpc.Channel]]:
    provider, _ = spans
    server = _Server(provider)
    server.server.start()
    target = f"127.0.0.1:{server.port}"
    channel = grpc.intercept_channel(
        grpc.insecure_channel(target), ClientSpanInterceptor(target, provider)
    )
    try:
        yield server, channel
    finally:
        server.release.set()
        channel.close()
        server.server.stop(None).wait()


def _client_spans(exporter: InMemorySpanExporter, count: int) -> list[ReadableSpan]:
    """The ended CLIENT spans once there are ``count`` of them (ends may come from grpc's
    threads a moment after the caller sees the call end)."""
    deadline = time.monotonic() + 5
    while True:
        found = [s for s in exporter.get_finished_spans() if s.kind is SpanKind.CLIENT]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def _stream(channel: grpc.Channel) -> grpc.UnaryStreamMultiCallable[bytes, bytes]:
    return channel.unary_stream(f"/{SERVICE}/Stream")


def test_unary_calls_are_client_spans_with_rpc_attributes(
    spans: tuple[TracerProvider, InMemorySpanExporter], served: tuple[_Server, grpc.Channel]
) -> None:
    provider, exporter = spans
    server, channel = served
    unary: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(f"/{SERVICE}/Unary")
    with provider.get_tracer("test").start_as_current_span("caller") as caller:
        assert unary(b"hello") == b"hello"
        with pytest.raises(grpc.RpcError) as failed:
            unary(b"missing")
    assert failed.value.code() is grpc.StatusCode.NOT_FOUND
    ok, missing = _client_spans(exporter, 2)
    assert ok.name == f"{SERVICE}/Unary"
    assert dict(ok.attributes or {}) == {
        "rpc.system": "grpc",
        "rpc.service": SERVICE,
        "rpc.method": "Unary",
        "server.address": "127.0.0.1",
        "server.port": server.port,
        "rpc.grpc.status_code": 0,
    }
    assert ok.status.status_code is StatusCode.UNSET
    assert missing.status.status_code is StatusCode.ERROR
    assert missing.status.description == "NOT_FOUND: no such thing"
    assert (missing.attributes or {})["rpc.grpc.status_code"] == 5
    # Both children of the caller's span, and each the parent of the server's span.
    assert ok.parent is not None and ok.parent.span_id == caller.get_span_context().span_id
    server_spans = [s for s in exporter.get_finished_spans() if s.kind is SpanKind.SERVER]
    assert sorted(s.parent.span_id for s in server_spans if s.parent) == sorted(
        [ok.context.span_id, missing.context.span_id]
    )
    assert {s.context.trace_id for s in (ok, missing, *server_spans)} == {
        caller.get_span_context().trace_id
    }


def test_a_stream_span_ends_when_the_stream_does(
    spans: tuple[TracerProvider, InMemorySpanExporter], served: tuple[_Server, grpc.Channel]
) -> None:
    _, exporter = spans
    server, channel = served
    call = _stream(channel)(b"read")
    assert next(call) == b"first"
    assert _client_spans(exporter, 0) == []  # still open while the stream is
    server.release.set()
    assert list(call) == [b"second"]
    (span,) = _client_spans(exporter, 1)
    assert span.status.status_code is StatusCode.UNSET
    assert (span.attributes or {})["rpc.grpc.status_code"] == 0


def test_cancel_still_ends_the_call_and_its_span(
    spans: tuple[TracerProvider, InMemorySpanExporter], served: tuple[_Server, grpc.Channel]
) -> None:
    _, exporter = spans
    server, channel = served
    call = _stream(channel)(b"read")
    assert next(call) == b"first"
    assert call.cancel()  # the call itself, not a wrapper: the docreader client relies on it
    assert server.cancelled.wait(5), "the server never saw the cancellation"
    with pytest.raises(grpc.RpcError) as ended:
        next(call)
    assert ended.value.code() is grpc.StatusCode.CANCELLED
    (span,) = _client_spans(exporter, 1)
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["rpc.grpc.status_code"] == grpc.StatusCode.CANCELLED.value[0]


def test_a_failed_stream_span_carries_the_code(
    spans: tuple[TracerProvider, InMemorySpanExporter], served: tuple[_Server, grpc.Channel]
) -> None:
    _, exporter = spans
    server, channel = served
    call = _stream(channel)(b"fail")
    assert next(call) == b"first"
    server.release.set()
    with pytest.raises(grpc.RpcError) as failed:
        list(call)
    assert failed.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    (span,) = _client_spans(exporter, 1)
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == "RESOURCE_EXHAUSTED: enough"


def test_an_unreachable_server_ends_the_span_as_unavailable(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    with grpc.insecure_channel("127.0.0.1:1") as raw:
        channel = grpc.intercept_channel(raw, ClientSpanInterceptor("127.0.0.1:1", provider))
        with pytest.raises(grpc.RpcError) as failed:
            list(_stream(channel)(b"read", timeout=5))
    assert failed.value.code() is grpc.StatusCode.UNAVAILABLE
    (span,) = _client_spans(exporter, 1)
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["rpc.grpc.status_code"] == 14
