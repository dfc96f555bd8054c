"""Storage errors no handler expected, as the gRPC status a client gets (server.api.errors),
through a real in-process grpc.aio server: a unary and a server-streaming handler."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from server.api.rpc import streaming, unary
from storage.files.backend_scoped import UnknownBackendError
from storage.files.base import FileNotFoundInStorage, StorageError, UnsafePathError

PATH = "storage://gone/local://tenant/knowledge/secret-name.pdf"
Ctx = grpc.aio.ServicerContext[Any, Any]


class Failing:
    def __init__(self, error: StorageError) -> None:
        self.error = error

    @unary
    async def Call(self, request: empty_pb2.Empty, context: Ctx) -> empty_pb2.Empty:
        raise self.error

    @streaming
    async def Stream(
        self, request: empty_pb2.Empty, context: Ctx
    ) -> AsyncIterator[empty_pb2.Empty]:
        yield empty_pb2.Empty()
        raise self.error


async def _statuses(error: StorageError) -> list[grpc.aio.AioRpcError]:
    failing = Failing(error)
    handlers = {
        "Call": grpc.unary_unary_rpc_method_handler(
            failing.Call, empty_pb2.Empty.FromString, empty_pb2.Empty.SerializeToString
        ),
        "Stream": grpc.unary_stream_rpc_method_handler(
            failing.Stream, empty_pb2.Empty.FromString, empty_pb2.Empty.SerializeToString
        ),
    }
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler("test.Storage", handlers)]
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    errors = []
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary(
                "/test.Storage/Call", empty_pb2.Empty.SerializeToString, empty_pb2.Empty.FromString
            )
            stream = channel.unary_stream(
                "/test.Storage/Stream",
                empty_pb2.Empty.SerializeToString,
                empty_pb2.Empty.FromString,
            )
            try:
                await call(empty_pb2.Empty(), timeout=10)
            except grpc.aio.AioRpcError as exc:
                errors.append(exc)
            try:
                async for _ in stream(empty_pb2.Empty(), timeout=10):
                    pass
            except grpc.aio.AioRpcError as exc:
                errors.append(exc)
    finally:
        await server.stop(None)
    assert len(errors) == 2, "both calls must fail"
    return errors


@pytest.mark.parametrize(
    ("error", "code"),
    [
        # Retrying cannot help until an operator configures the backend again.
        (
            UnknownBackendError("gone", f"{PATH!r} is on backend 'gone'"),
            grpc.StatusCode.FAILED_PRECONDITION,
        ),
        (FileNotFoundInStorage(PATH), grpc.StatusCode.NOT_FOUND),
        (StorageError(f"reading {PATH} failed: connection refused"), grpc.StatusCode.UNAVAILABLE),
        # No client input reaches storage as a path: an unsafe one is our bug.
        (UnsafePathError(f"unsafe path {PATH!r}"), grpc.StatusCode.INTERNAL),
    ],
)
def test_storage_errors_map_to_what_the_client_can_do_about_them(
    error: StorageError, code: grpc.StatusCode
) -> None:
    for failed in asyncio.run(_statuses(error)):
        assert failed.code() == code, failed.details()
        assert "secret-name" not in (failed.details() or ""), "paths stay in the log"


def test_an_unconfigured_backend_names_it_in_the_precondition_failure() -> None:
    error = UnknownBackendError("gone", f"{PATH!r} is on backend 'gone'")
    for failed in asyncio.run(_statuses(error)):
        status = rpc_status.from_call(failed)
        assert status is not None
        [packed] = status.details
        failure = error_details_pb2.PreconditionFailure()
        assert packed.Unpack(failure)
        [violation] = failure.violations
        assert (violation.type, violation.subject) == ("STORAGE_BACKEND_NOT_CONFIGURED", "gone")
