"""The access-log interceptors on real gRPC servers (thread-pool and grpc.aio): one record
per call, of every kind of call, with the status it ended with, its level, the peer and
the request bytes (summed over a client stream)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import HealthServicer
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from workers.observability.logging_access import AccessLogInterceptor, AsyncAccessLogInterceptor

SERVICE = "test.Echo"


def _sync_handlers() -> grpc.GenericRpcHandler:
    def unary(request: bytes, context: grpc.ServicerContext) -> bytes:
        if request == b"missing":
            context.abort(grpc.StatusCode.NOT_FOUND, "no such thing")
        if request == b"crash":
            raise RuntimeError("a bug")
        return request

    def upload(requests: Iterator[bytes], context: grpc.ServicerContext) -> bytes:
        return b"".join(requests)

    def download(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        yield request
        context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "enough")

    return grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Unary": grpc.unary_unary_rpc_method_handler(unary),
            "Upload": grpc.stream_unary_rpc_method_handler(upload),
            "Download": grpc.unary_stream_rpc_method_handler(download),
        },
    )


def _aio_handlers() -> grpc.GenericRpcHandler:
    async def unary(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        if request == b"missing":
            await context.abort(grpc.StatusCode.NOT_FOUND, "no such thing")
        if request == b"crash":
            raise RuntimeError("a bug")
        return request

    async def upload(
        requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[Any, Any]
    ) -> bytes:
        return b"".join([r async for r in requests])

    async def download(
        request: bytes, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[bytes]:
        yield request
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "enough")

    return grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Unary": grpc.unary_unary_rpc_method_handler(unary),
            "Upload": grpc.stream_unary_rpc_method_handler(upload),
            "Download": grpc.unary_stream_rpc_method_handler(download),
        },
    )


def _calls(target: str) -> None:
    """The same calls against either server, from a sync client."""
    with grpc.insecure_channel(target) as channel:
        # Raw bytes both ways: no (de)serializers, typed as such for the checker.
        unary: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(f"/{SERVICE}/Unary")
        upload: grpc.StreamUnaryMultiCallable[bytes, bytes] = channel.stream_unary(
            f"/{SERVICE}/Upload"
        )
        download: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(
            f"/{SERVICE}/Download"
        )
        assert unary(b"hello") == b"hello"
        for request, code in ((b"missing", grpc.StatusCode.NOT_FOUND), (b"crash", None)):
            with pytest.raises(grpc.RpcError) as failed:
                unary(request)
            assert code is None or failed.value.code() == code
        assert upload(iter([b"abcd"] * 3)) == b"abcd" * 3
        with pytest.raises(grpc.RpcError):
            list(download(b"xy"))


def _records(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    fields = ("method", "code", "duration_ms", "peer", "request_bytes")
    return [
        {"level": r.levelname, **{f: getattr(r, f) for f in fields}}
        for r in caplog.records
        if r.name == "sluice.access"
    ]


def _check(records: list[dict[str, Any]]) -> None:
    by_call = [(r["method"].rsplit("/", 1)[1], r["code"], r["level"]) for r in records]
    assert by_call == [
        ("Unary", "OK", "INFO"),
        ("Unary", "NOT_FOUND", "INFO"),
        ("Unary", "UNKNOWN", "ERROR"),
        ("Upload", "OK", "INFO"),
        ("Download", "RESOURCE_EXHAUSTED", "INFO"),
    ]
    assert [r["request_bytes"] for r in records] == [5, 7, 5, 12, 2]
    assert all(r["peer"].startswith("ipv4:127.0.0.1:") for r in records)
    assert all(r["duration_ms"] >= 0 for r in records)


def test_thread_pool_server_logs_each_call(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "sluice.access")
    server = grpc.server(ThreadPoolExecutor(2), interceptors=[AccessLogInterceptor()])
    server.add_generic_rpc_handlers((_sync_handlers(),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        _calls(f"127.0.0.1:{port}")
    finally:
        server.stop(None).wait()
    _check(_records(caplog))


def test_aio_server_logs_each_call(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "sluice.access")

    async def serve_and_call() -> None:
        server = grpc.aio.server(interceptors=[AsyncAccessLogInterceptor()])
        server.add_generic_rpc_handlers((_aio_handlers(),))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            await asyncio.to_thread(_calls, f"127.0.0.1:{port}")
        finally:
            await server.stop(None)

    asyncio.run(serve_and_call())
    _check(_records(caplog))


def test_probe_calls_are_logged_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    """Health checks and reflection, which probes and tools repeat, stay out of INFO."""
    caplog.set_level(logging.DEBUG, "sluice.access")
    server = grpc.server(ThreadPoolExecutor(2), interceptors=[AccessLogInterceptor()])
    health_pb2_grpc.add_HealthServicer_to_server(HealthServicer(), server)
    reflection.enable_server_reflection((reflection.SERVICE_NAME,), server)
    server.add_generic_rpc_handlers((_sync_handlers(),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            listing = reflection_pb2.ServerReflectionRequest(list_services="")
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            assert list(stub.ServerReflectionInfo(iter([listing])))
            echo: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                f"/{SERVICE}/Unary"
            )
            assert echo(b"hello") == b"hello"
    finally:
        server.stop(None).wait()
    by_call = [(r["method"], r["code"], r["level"]) for r in _records(caplog)]
    assert by_call == [
        ("/grpc.health.v1.Health/Check", "OK", "DEBUG"),
        ("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", "OK", "DEBUG"),
        (f"/{SERVICE}/Unary", "OK", "INFO"),
    ]
