"""The RPC metrics interceptors on real in-process gRPC servers (the API's grpc.aio kind and
the docreader's thread-pool kind): every call is counted under the status it ended with —
OK, the code an ``abort`` gave, UNKNOWN for an exception — unary and streamed alike, and
timed; a service the server was not told of is counted as "unknown"."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2
from prometheus_client import REGISTRY

from workers.observability.metrics_grpc import (
    AsyncRpcMetricsInterceptor,
    RpcMetricsInterceptor,
    status_name,
)

SERVICE = "test.Metered"
EMPTY = empty_pb2.Empty
Ctx = grpc.aio.ServicerContext[Any, Any]


def _count(server: str, method: str, code: str, service: str = SERVICE) -> float:
    labels = {"server": server, "service": service, "method": method, "code": code}
    return REGISTRY.get_sample_value("sluice_rpc_requests_total", labels) or 0.0


def _timed(server: str, method: str) -> float:
    labels = {"server": server, "service": SERVICE, "method": method}
    return REGISTRY.get_sample_value("sluice_rpc_duration_seconds_count", labels) or 0.0


async def _ok(request: EMPTY, context: Ctx) -> EMPTY:
    return EMPTY()


async def _missing(request: EMPTY, context: Ctx) -> EMPTY:
    await context.abort(grpc.StatusCode.NOT_FOUND, "no such thing")


async def _broken(request: EMPTY, context: Ctx) -> EMPTY:
    raise RuntimeError("a bug")


async def _stream_then_refuse(request: EMPTY, context: Ctx) -> AsyncIterator[EMPTY]:
    yield EMPTY()
    await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "not now")


def _handlers(unary: dict[str, Any], streams: dict[str, Any]) -> grpc.GenericRpcHandler:
    encode, decode = EMPTY.SerializeToString, EMPTY.FromString
    handlers = {
        **{n: grpc.unary_unary_rpc_method_handler(f, decode, encode) for n, f in unary.items()},
        **{n: grpc.unary_stream_rpc_method_handler(f, decode, encode) for n, f in streams.items()},
    }
    return grpc.method_handlers_generic_handler(SERVICE, handlers)


async def _call_all(port: int) -> dict[str, grpc.StatusCode]:
    codes = {}
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        for name in ("Ok", "Missing", "Broken"):
            call = channel.unary_unary(
                f"/{SERVICE}/{name}", EMPTY.SerializeToString, EMPTY.FromString
            )
            try:
                await call(EMPTY(), timeout=10)
                codes[name] = grpc.StatusCode.OK
            except grpc.aio.AioRpcError as exc:
                codes[name] = exc.code()
        stream = channel.unary_stream(
            f"/{SERVICE}/Stream", EMPTY.SerializeToString, EMPTY.FromString
        )
        received = []
        try:
            async for item in stream(EMPTY(), timeout=10):
                received.append(item)
        except grpc.aio.AioRpcError as exc:
            codes["Stream"] = exc.code()
        assert len(received) == 1, "the stream's message arrives before its status"
        other = channel.unary_unary(
            "/other.Secret/Probe", EMPTY.SerializeToString, EMPTY.FromString
        )
        with pytest.raises(grpc.aio.AioRpcError):
            await other(EMPTY(), timeout=10)
    return codes


EXPECTED = {
    "Ok": "OK",
    "Missing": "NOT_FOUND",
    "Broken": "UNKNOWN",
    "Stream": "FAILED_PRECONDITION",
}


def _before(server: str) -> dict[str, float]:
    return {name: _count(server, name, code) for name, code in EXPECTED.items()}


def _assert_counted(server: str, before: dict[str, float], codes: dict[str, Any]) -> None:
    assert {name: code.name for name, code in codes.items()} == EXPECTED
    for name, code in EXPECTED.items():
        assert _count(server, name, code) == before[name] + 1, name
        assert _count(server, name, "OK") == (before[name] + 1 if code == "OK" else 0), name
        assert _timed(server, name) >= 1, name


def test_the_aio_interceptor_counts_each_call_by_its_status() -> None:
    async def scenario() -> dict[str, grpc.StatusCode]:
        server = grpc.aio.server(interceptors=[AsyncRpcMetricsInterceptor("aio-test", [SERVICE])])
        server.add_generic_rpc_handlers(
            [
                _handlers(
                    {"Ok": _ok, "Missing": _missing, "Broken": _broken},
                    {"Stream": _stream_then_refuse},
                )
            ]
        )
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            return await _call_all(port)
        finally:
            await server.stop(None)

    before = _before("aio-test")
    codes = asyncio.run(scenario())
    _assert_counted("aio-test", before, codes)
    # The unknown service's call was not answered by any handler: nothing to label.
    assert _count("aio-test", "Probe", "UNIMPLEMENTED", service="other.Secret") == 0


def test_the_thread_pool_interceptor_counts_each_call_by_its_status() -> None:
    def ok(request: EMPTY, context: grpc.ServicerContext) -> EMPTY:
        return EMPTY()

    def missing(request: EMPTY, context: grpc.ServicerContext) -> EMPTY:
        context.abort(grpc.StatusCode.NOT_FOUND, "no such thing")

    def broken(request: EMPTY, context: grpc.ServicerContext) -> EMPTY:
        raise RuntimeError("a bug")

    def stream(request: EMPTY, context: grpc.ServicerContext) -> Iterator[EMPTY]:
        yield EMPTY()
        context.abort(grpc.StatusCode.FAILED_PRECONDITION, "not now")

    server = grpc.server(
        ThreadPoolExecutor(max_workers=2),
        interceptors=[RpcMetricsInterceptor("sync-test", [SERVICE])],
    )
    server.add_generic_rpc_handlers(
        [_handlers({"Ok": ok, "Missing": missing, "Broken": broken}, {"Stream": stream})]
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    before = _before("sync-test")
    try:
        codes = asyncio.run(_call_all(port))
    finally:
        server.stop(None).wait()
    _assert_counted("sync-test", before, codes)


def test_a_service_not_served_is_counted_as_unknown() -> None:
    async def scenario() -> None:
        # The server serves SERVICE but the interceptor is told only of another one.
        server = grpc.aio.server(interceptors=[AsyncRpcMetricsInterceptor("unknown-test", ["x.Y"])])
        server.add_generic_rpc_handlers([_handlers({"Ok": _ok}, {})])
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = channel.unary_unary(
                    f"/{SERVICE}/Ok", EMPTY.SerializeToString, EMPTY.FromString
                )
                await call(EMPTY(), timeout=10)
        finally:
            await server.stop(None)

    asyncio.run(scenario())
    assert _count("unknown-test", "unknown", "OK", service="unknown") == 1
    assert _count("unknown-test", "Ok", "OK") == 0


def test_a_stream_written_with_context_write_still_streams_and_is_counted() -> None:
    async def written(request: EMPTY, context: Ctx) -> None:
        await context.write(EMPTY())
        await context.write(EMPTY())

    async def scenario() -> int:
        server = grpc.aio.server(interceptors=[AsyncRpcMetricsInterceptor("write-test", [SERVICE])])
        server.add_generic_rpc_handlers([_handlers({}, {"Written": written})])
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stream = channel.unary_stream(
                    f"/{SERVICE}/Written", EMPTY.SerializeToString, EMPTY.FromString
                )
                return len([item async for item in stream(EMPTY(), timeout=10)])
        finally:
            await server.stop(None)

    assert asyncio.run(scenario()) == 2
    assert _count("write-test", "Written", "OK") == 1


def test_repeated_calls_of_one_method_are_each_counted_under_their_own_status() -> None:
    # The interceptor keeps a method's labels and metric children after its first call:
    # a later call that ends otherwise must still land under its own code.
    answers = iter([None, grpc.StatusCode.NOT_FOUND, None, grpc.StatusCode.NOT_FOUND, None])

    async def varying(request: EMPTY, context: Ctx) -> EMPTY:
        code = next(answers)
        if code is not None:
            await context.abort(code, "not this time")
        return EMPTY()

    async def scenario() -> None:
        server = grpc.aio.server(
            interceptors=[AsyncRpcMetricsInterceptor("repeat-test", [SERVICE])]
        )
        server.add_generic_rpc_handlers([_handlers({"Varying": varying}, {})])
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = channel.unary_unary(
                    f"/{SERVICE}/Varying", EMPTY.SerializeToString, EMPTY.FromString
                )
                for _ in range(5):
                    try:
                        await call(EMPTY(), timeout=10)
                    except grpc.aio.AioRpcError as exc:
                        assert exc.code() == grpc.StatusCode.NOT_FOUND
        finally:
            await server.stop(None)

    asyncio.run(scenario())
    assert _count("repeat-test", "Varying", "OK") == 3
    assert _count("repeat-test", "Varying", "NOT_FOUND") == 2
    assert _timed("repeat-test", "Varying") == 5


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (None, "OK"),
        (asyncio.CancelledError(), "CANCELLED"),
        # A stream whose caller left mid-send: its generator is closed when collected.
        (GeneratorExit(), "CANCELLED"),
        (RuntimeError("bug"), "UNKNOWN"),
    ],
)
def test_a_call_without_a_code_is_named_by_how_it_ended(
    error: BaseException | None, status: str
) -> None:
    assert status_name(None, error) == status
