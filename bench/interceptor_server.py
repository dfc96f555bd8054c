"""The server of bench.observability_overhead: a grpc.aio server with the API's interceptors,
as many of them as the variant asks for, in the order start_api_server puts them.

It serves the API's own health servicer (the unary Health/Check, which touches no storage)
and one server-streaming method, sluice.bench.Stream/Count, that answers with ``--messages``
HealthCheckResponse messages from an async generator, as the API's Watch* methods do. The
variants:

- ``bare``: no interceptor at all;
- ``log``: the access log alone (what the API always has);
- ``metrics``: the RPC metrics interceptor outside the access log, as in the API;
- ``traced``: the same with the OpenTelemetry span around the access log, exporting to
  SLUICE_OTLP_ENDPOINT.

The access log goes to stderr as JSON lines, as the API's does.

    .venv/bin/python -m bench.interceptor_server --variant metrics [--address 127.0.0.1:0]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from server.health import AsyncListingHealthServicer
from workers.observability.logging_access import AsyncAccessLogInterceptor
from workers.observability.logging_setup import configure_logging
from workers.observability.metrics_grpc import AsyncRpcMetricsInterceptor
from workers.observability.tracing import configure_tracing, tracing_enabled
from workers.observability.tracing_grpc import aio_server_interceptors
from workers.settings_telemetry import telemetry_or_exit

VARIANTS = ("bare", "log", "metrics", "traced")
STREAM_SERVICE = "sluice.bench.Stream"
HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name


def interceptors(variant: str) -> list[grpc.aio.ServerInterceptor]:
    if variant == "bare":
        return []
    if variant == "log":
        return [AsyncAccessLogInterceptor()]
    observed = (HEALTH_SERVICE, STREAM_SERVICE)
    return [AsyncRpcMetricsInterceptor("api", observed), *aio_server_interceptors()]


def _count_handler(
    messages: int,
) -> grpc.RpcMethodHandler[health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse]:
    async def count(
        _request: health_pb2.HealthCheckRequest, _context: grpc.aio.ServicerContext[object, object]
    ) -> AsyncIterator[health_pb2.HealthCheckResponse]:
        for _ in range(messages):
            yield health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    return grpc.unary_stream_rpc_method_handler(
        count,
        request_deserializer=health_pb2.HealthCheckRequest.FromString,
        response_serializer=health_pb2.HealthCheckResponse.SerializeToString,
    )


async def serve(variant: str, address: str, messages: int) -> None:
    server = grpc.aio.server(interceptors=interceptors(variant))
    health = AsyncListingHealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    await health.set("", health_pb2.HealthCheckResponse.SERVING)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(STREAM_SERVICE, {"Count": _count_handler(messages)}),)
    )
    port = server.add_insecure_port(address)
    await server.start()
    host = address.rsplit(":", 1)[0]
    print(f"{variant} server listening on {host}:{port}", flush=True)
    await server.wait_for_termination()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.interceptor_server", description=__doc__)
    parser.add_argument("--variant", choices=VARIANTS, required=True)
    parser.add_argument("--address", default="127.0.0.1:0")
    parser.add_argument("--messages", type=int, default=10, help="messages of a Count stream")
    args = parser.parse_args(argv)
    telemetry = telemetry_or_exit("bench.interceptor_server")
    configure_logging(telemetry)
    if args.variant == "traced" and not configure_tracing(telemetry, "sluice-bench"):
        parser.error("--variant traced needs SLUICE_OTLP_ENDPOINT")
    assert tracing_enabled() == (args.variant == "traced")
    asyncio.run(serve(args.variant, args.address, args.messages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
