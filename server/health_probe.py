"""``python -m server.health_probe ADDRESS``: asks a Sluice server's grpc.health.v1 service
whether it serves, for container healthchecks (compose, or Kubernetes exec probes where the
native grpc probe cannot speak TLS). Exit status 0 when SERVING, 1 otherwise, with one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from core.tls import ClientTls, TlsFileError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m server.health_probe", description=__doc__)
    parser.add_argument("address", help="host:port of the API or the docreader")
    parser.add_argument("--service", default="", help='service to ask about (default "": all)')
    parser.add_argument("--timeout-s", type=float, default=5.0)
    parser.add_argument("--tls-ca", type=Path, help="PEM CA bundle: connect with TLS")
    parser.add_argument("--tls-cert", type=Path, help="PEM client certificate (mutual TLS)")
    parser.add_argument("--tls-key", type=Path, help="PEM key of --tls-cert")
    parser.add_argument(
        "--tls-server-name",
        default=None,
        help="name the server's certificate is checked against (default: the address's host)",
    )
    return parser


def _channel(address: str, tls: ClientTls | None, server_name: str | None) -> grpc.Channel:
    if tls is None:
        return grpc.insecure_channel(address)
    credentials = grpc.ssl_channel_credentials(tls.ca, tls.private_key, tls.cert_chain)
    # A probe dials 127.0.0.1 inside the pod; the certificate names the Service.
    options = [("grpc.ssl_target_name_override", server_name)] if server_name else []
    return grpc.secure_channel(address, credentials, options=options)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        tls = (
            ClientTls.from_files(args.tls_ca, args.tls_cert, args.tls_key) if args.tls_ca else None
        )
    except TlsFileError as exc:
        parser.error(str(exc))
    with _channel(args.address, tls, args.tls_server_name) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout_s
            )
        except grpc.RpcError as exc:
            print(f"{args.address}: {exc.code().name}: {exc.details()}", file=sys.stderr)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{args.address}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


if __name__ == "__main__":
    sys.exit(main())
