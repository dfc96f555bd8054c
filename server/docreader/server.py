"""Builds and runs the docreader gRPC server (``python -m server.docreader``).

The server carries the DocReaderService, ``grpc.health.v1`` (the service name and the
overall "" both SERVING) and server reflection, so grpcurl works without proto files.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from sluice.docreader.v1 import docreader_pb2, docreader_pb2_grpc

from core.tls import ServerTls
from server import reflection
from server.binding import EXCLUSIVE_BIND, BindError, listen
from server.docreader.flags import (
    DEFAULT_MAX_INPUT_MB,
    DEFAULT_MEMORY_CAP_MB,
    DEFAULT_PARSE_TIMEOUT_S,
    argument_parser,
    server_tls,
)
from server.docreader.reader import DocumentReader
from server.docreader.safety.limits import ParseLimits
from server.docreader.sandbox.runner import SandboxRunner
from server.docreader.service import DocReaderServicer
from server.health import ListingHealthServicer
from workers.observability.logging_setup import configure_logging
from workers.observability.metrics_endpoint import MetricsPortError, serve_metrics
from workers.observability.metrics_grpc import RpcMetricsInterceptor
from workers.observability.tracing import configure_tracing
from workers.observability.tracing_grpc import server_interceptors
from workers.settings_telemetry import telemetry_or_exit

SERVICE_NAME: str = docreader_pb2.DESCRIPTOR.services_by_name["DocReaderService"].full_name
SHUTDOWN_GRACE_S = 30.0
SERVED = (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME)

logger = logging.getLogger(__name__)


def channel_options(max_message_bytes: int) -> list[tuple[str, int]]:
    """Server-side limits, plus keepalive rules lenient enough for clients that ping every
    30 s during a long parse (the default would answer them with GOAWAY too_many_pings)."""
    return [
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.keepalive_time_ms", 60_000),
        ("grpc.keepalive_timeout_ms", 20_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
        ("grpc.keepalive_permit_without_calls", 1),
        EXCLUSIVE_BIND,
    ]


def build_docreader_server(
    address: str,
    *,
    max_workers: int,
    storage_base_dir: str | None,
    max_message_bytes: int,
    memory_cap_mb: int = DEFAULT_MEMORY_CAP_MB,
    parse_timeout_s: float = DEFAULT_PARSE_TIMEOUT_S,
    max_input_mb: int = DEFAULT_MAX_INPUT_MB,
    work_dir: str | None = None,
    limits: ParseLimits | None = None,
    tls: ServerTls | None = None,
) -> tuple[grpc.Server, int]:
    """A server ready to start (not started yet) and the port it bound.

    ``address`` is "host:port" (port 0 picks a free one) or "unix:/path/to.sock"; for a unix
    socket the returned number is grpc's non-zero bind result, not a TCP port. A taken
    address raises BindError. With ``tls`` the port serves TLS only.
    """
    server = grpc.server(
        ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="docreader"),
        # Its metrics, then its span and access log, each call.
        interceptors=[RpcMetricsInterceptor("docreader", SERVED), *server_interceptors()],
        options=channel_options(max_message_bytes),
    )
    runner = SandboxRunner(memory_cap_bytes=memory_cap_mb << 20, timeout_s=parse_timeout_s)
    work_root = Path(work_dir) if work_dir else None
    if work_root is not None:
        work_root.mkdir(parents=True, exist_ok=True)
    servicer = DocReaderServicer(
        DocumentReader(runner, limits),
        storage_base_dir=Path(storage_base_dir) if storage_base_dir else None,
        max_message_bytes=max_message_bytes,
        max_input_bytes=max_input_mb << 20 if max_input_mb > 0 else None,
        work_root=work_root,
    )
    docreader_pb2_grpc.add_DocReaderServiceServicer_to_server(servicer, server)
    health_servicer = ListingHealthServicer()
    for name in (SERVICE_NAME, ""):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(SERVED, server)
    return server, listen(server, address, tls)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argument_parser(__doc__)
    args = parser.parse_args(argv)
    tls = server_tls(parser, args)
    # Its flags are its settings; only the telemetry group comes from SLUICE_* variables.
    telemetry = telemetry_or_exit("python -m server.docreader")
    configure_logging(telemetry)
    configure_tracing(telemetry, "sluice-docreader")
    try:
        server, port = build_docreader_server(
            args.address,
            max_workers=args.max_workers,
            storage_base_dir=args.storage_base_dir,
            max_message_bytes=args.max_message_bytes,
            memory_cap_mb=args.memory_cap_mb,
            parse_timeout_s=args.parse_timeout_s,
            max_input_mb=args.max_input_mb,
            work_dir=args.work_dir,
            tls=tls,
        )
    except BindError as exc:
        print(f"python -m server.docreader: {exc}", file=sys.stderr)
        return 1
    try:
        endpoint = None
        if args.metrics_port:
            endpoint = serve_metrics(args.metrics_host, args.metrics_port)
    except MetricsPortError as exc:
        print(f"python -m server.docreader: {exc}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        logger.info("docreader got signal %s, stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    server.start()
    logger.info(
        "docreader serving on %s (port %d, %s)", args.address, port, "TLS" if tls else "plaintext"
    )
    stop.wait()
    server.stop(grace=SHUTDOWN_GRACE_S).wait()
    if endpoint is not None:
        endpoint.stop()
    logger.info("docreader stopped")
    return 0
