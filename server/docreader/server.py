"""Builds and runs the docreader gRPC server (``python -m server.docreader``).

The server carries the DocReaderService, ``grpc.health.v1`` (the service name and the
overall "" both SERVING) and server reflection, so grpcurl works without proto files.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from sluice.docreader.v1 import docreader_pb2, docreader_pb2_grpc

from server.docreader.reader import DocumentReader
from server.docreader.safety.limits import ParseLimits
from server.docreader.sandbox.runner import SandboxRunner
from server.docreader.service import DocReaderServicer

SERVICE_NAME: str = docreader_pb2.DESCRIPTOR.services_by_name["DocReaderService"].full_name
DEFAULT_ADDRESS = "127.0.0.1:50061"
DEFAULT_MAX_MESSAGE_BYTES = 64 << 20
# Each parse runs in a child capped at this much address space, and this long.
DEFAULT_MEMORY_CAP_MB = 2048
DEFAULT_PARSE_TIMEOUT_S = 1800.0
# The most a ReadUpload may send; above the API's default upload cap (1 GiB).
DEFAULT_MAX_INPUT_MB = 2048
SHUTDOWN_GRACE_S = 30.0

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
) -> tuple[grpc.Server, int]:
    """A server ready to start (not started yet) and the port it bound.

    ``address`` is "host:port" (port 0 picks a free one) or "unix:/path/to.sock"; for a unix
    socket the returned number is grpc's non-zero bind result, not a TCP port.
    """
    server = grpc.server(
        ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="docreader"),
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
    health_servicer = health.HealthServicer()
    for name in (SERVICE_NAME, ""):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(address)
    return server, port


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    server, port = build_docreader_server(
        args.address,
        max_workers=args.max_workers,
        storage_base_dir=args.storage_base_dir,
        max_message_bytes=args.max_message_bytes,
        memory_cap_mb=args.memory_cap_mb,
        parse_timeout_s=args.parse_timeout_s,
        max_input_mb=args.max_input_mb,
        work_dir=args.work_dir,
    )
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        logger.info("docreader got signal %s, stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    server.start()
    logger.info("docreader serving on %s (port %d)", args.address, port)
    stop.wait()
    server.stop(grace=SHUTDOWN_GRACE_S).wait()
    logger.info("docreader stopped")


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m server.docreader", description=__doc__)
    parser.add_argument("--address", default=DEFAULT_ADDRESS,
                        help="host:port or unix:/path/to.sock (default %(default)s)")
    parser.add_argument("--max-workers", type=int, default=os.cpu_count() or 2,
                        help="parsing threads (default: the number of CPUs)")
    parser.add_argument("--storage-base-dir", default=None,
                        help="local storage folder that storage_ref keys are resolved under")
    parser.add_argument("--max-message-bytes", type=int, default=DEFAULT_MAX_MESSAGE_BYTES,
                        help="largest gRPC message in either direction (default %(default)s)")
    parser.add_argument("--memory-cap-mb", type=int, default=DEFAULT_MEMORY_CAP_MB,
                        help="address-space cap of each parse's child process (default "
                        "%(default)s; 0 = none)")
    parser.add_argument("--parse-timeout-s", type=float, default=DEFAULT_PARSE_TIMEOUT_S,
                        help="longest one parse may run (default %(default)s)")
    parser.add_argument("--max-input-mb", type=int, default=DEFAULT_MAX_INPUT_MB,
                        help="largest file a ReadUpload may send; a larger one is refused with "
                        "RESOURCE_EXHAUSTED (default %(default)s; 0 = none)")
    parser.add_argument("--work-dir", default=None,
                        help="where reads spool their input and output (default: the temp dir)")
    return parser
