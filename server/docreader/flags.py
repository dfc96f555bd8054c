"""Command-line flags of ``python -m server.docreader``, range-checked.

A bad flag ends the process with exit status 2 and one line naming the flag, the same as a
bad SLUICE_* variable does for the other processes.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from core.tls import ServerTls, TlsFileError

DEFAULT_ADDRESS = "127.0.0.1:50061"
DEFAULT_MAX_MESSAGE_BYTES = 64 << 20
# Each parse runs in a child capped at this much address space, and this long.
DEFAULT_MEMORY_CAP_MB = 2048
DEFAULT_PARSE_TIMEOUT_S = 1800.0
# The most a ReadUpload may send; above the API's default upload cap (1 GiB).
DEFAULT_MAX_INPUT_MB = 2048


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def _at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, not {value}")
        return value

    return parse


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, not {text!r}")
    return value


def argument_parser(description: str | None) -> argparse.ArgumentParser:
    parser = _OneLineParser(prog="python -m server.docreader", description=description)
    parser.add_argument(
        "--address",
        default=DEFAULT_ADDRESS,
        help="host:port or unix:/path/to.sock (default %(default)s)",
    )
    parser.add_argument(
        "--max-workers",
        type=_at_least(1),
        default=os.cpu_count() or 2,
        help="parsing threads (default: the number of CPUs)",
    )
    parser.add_argument(
        "--storage-base-dir",
        default=None,
        help="local storage folder that storage_ref keys are resolved under",
    )
    parser.add_argument(
        "--max-message-bytes",
        type=_at_least(1),
        default=DEFAULT_MAX_MESSAGE_BYTES,
        help="largest gRPC message in either direction (default %(default)s)",
    )
    parser.add_argument(
        "--memory-cap-mb",
        type=_at_least(0),
        default=DEFAULT_MEMORY_CAP_MB,
        help="address-space cap of each parse's child process (default %(default)s; 0 = none)",
    )
    parser.add_argument(
        "--parse-timeout-s",
        type=_positive_seconds,
        default=DEFAULT_PARSE_TIMEOUT_S,
        help="longest one parse may run (default %(default)s)",
    )
    parser.add_argument(
        "--max-input-mb",
        type=_at_least(0),
        default=DEFAULT_MAX_INPUT_MB,
        help="largest file a ReadUpload may send; a larger one is refused with "
        "RESOURCE_EXHAUSTED (default %(default)s; 0 = none)",
    )
    parser.add_argument(
        "--work-dir",
        default=None,
        help="where reads spool their input and output (default: the temp dir)",
    )
    # TLS: both files serve TLS only; --tls-client-ca then requires client certificates.
    parser.add_argument(
        "--tls-cert",
        type=Path,
        default=None,
        help="PEM certificate chain to serve TLS with (needs --tls-key)",
    )
    parser.add_argument("--tls-key", type=Path, default=None, help="PEM private key of --tls-cert")
    parser.add_argument(
        "--tls-client-ca",
        type=Path,
        default=None,
        help="PEM CA bundle: clients must present a certificate it signed",
    )
    # Prometheus /metrics (the README's "Observability: metrics"); off unless a port is given.
    parser.add_argument(
        "--metrics-port", type=_port, default=0, help="serve /metrics on this port (default 0: off)"
    )
    parser.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        help="interface of --metrics-port (default %(default)s)",
    )
    return parser


def _port(text: str) -> int:
    port = _at_least(0)(text)
    if port > 65535:
        raise argparse.ArgumentTypeError(f"must be at most 65535, not {port}")
    return port


def server_tls(parser: argparse.ArgumentParser, args: argparse.Namespace) -> ServerTls | None:
    """The TLS the flags ask for, its files read; a wrong one ends the process (status 2)
    with one line naming the flag's file."""
    if args.tls_cert is None and args.tls_key is None:
        if args.tls_client_ca is not None:
            parser.error("--tls-client-ca needs --tls-cert and --tls-key")
        return None
    if args.tls_cert is None or args.tls_key is None:
        parser.error("--tls-cert and --tls-key must be given together")
    try:
        return ServerTls.from_files(args.tls_cert, args.tls_key, args.tls_client_ca)
    except TlsFileError as exc:
        parser.error(str(exc))
