"""A grpc.aio server behind the access log, run as its own process by
test_access_log_abandoned_stream (a crash here must not take the test run with it).

``Flood`` streams 1 MiB messages for ever, so a client that stops reading leaves the
server waiting to send one; ``Echo`` answers its request. Each access record is printed
as ``rpc <method> <code> <peer>``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import grpc

from workers.observability.logging_access import AsyncAccessLogInterceptor

SERVICE = "test.Abandoned"
CHUNK = b"x" * (1 << 20)


class _Printed(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        fields = record.__dict__
        print("rpc", fields["method"], fields["code"], fields["peer"], flush=True)


async def _flood(
    request: bytes, context: grpc.aio.ServicerContext[Any, Any]
) -> AsyncIterator[bytes]:
    while True:
        yield CHUNK


async def _echo(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    return request


async def _serve() -> None:
    server = grpc.aio.server(interceptors=[AsyncAccessLogInterceptor()])
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                SERVICE,
                {
                    "Flood": grpc.unary_stream_rpc_method_handler(_flood),
                    "Echo": grpc.unary_unary_rpc_method_handler(_echo),
                },
            ),
        )
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


def main() -> None:
    access = logging.getLogger("sluice.access")
    access.setLevel(logging.INFO)
    access.addHandler(_Printed())
    asyncio.run(_serve())


if __name__ == "__main__":
    main()
