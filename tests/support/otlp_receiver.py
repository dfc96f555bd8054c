"""A real OTLP/gRPC trace receiver for the tests: the collector's TraceService, keeping every
span the processes export, with its service name, so a test can reassemble the traces."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1 import common_pb2


@dataclass(frozen=True)
class ReceivedSpan:
    service: str
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str  # "" for a root span
    kind: int
    attributes: dict[str, str]


class _TraceService(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.lock = threading.Lock()

    def Export(
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: grpc.ServicerContext
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        received = []
        for resource_spans in request.resource_spans:
            service = next(
                (
                    a.value.string_value
                    for a in resource_spans.resource.attributes
                    if a.key == "service.name"
                ),
                "",
            )
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    received.append(
                        ReceivedSpan(
                            service=service,
                            name=span.name,
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex(),
                            kind=span.kind,
                            attributes={
                                a.key: str(a.value.ListFields()[0][1])
                                if a.value.ListFields()
                                else ""
                                for a in span.attributes
                            },
                        )
                    )
        with self.lock:
            self.spans.extend(received)
        return trace_service_pb2.ExportTraceServiceResponse()


def _text(value: common_pb2.AnyValue) -> str:
    """An attribute's value, whatever its type, as text."""
    fields = value.ListFields()
    return str(fields[0][1]) if fields else ""


class OtlpReceiver:
    def __init__(self, service: _TraceService, port: int) -> None:
        self._service = service
        self.endpoint = f"http://127.0.0.1:{port}"

    def spans(self) -> list[ReceivedSpan]:
        with self._service.lock:
            return list(self._service.spans)

    def wait_for(
        self, found: Callable[[list[ReceivedSpan]], bool], timeout: float = 30.0
    ) -> list[ReceivedSpan]:
        """The spans received once ``found`` holds for them; AssertionError at the timeout."""
        deadline = time.monotonic() + timeout
        while True:
            spans = self.spans()
            if found(spans):
                return spans
            if time.monotonic() > deadline:
                names = sorted({(s.service, s.name) for s in spans})
                raise AssertionError(f"the spans expected did not arrive; received {names}")
            time.sleep(0.2)


@contextmanager
def otlp_receiver() -> Iterator[OtlpReceiver]:
    service = _TraceService()
    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    # The generated registration function carries no annotations.
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(service, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield OtlpReceiver(service, port)
    finally:
        server.stop(None).wait()
