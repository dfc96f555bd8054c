"""`sluice-server`: the API in lite mode (everything in one process) or full mode."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Sequence

from server.binding import BindError
from server.runtime import start_full_api, start_lite
from workers.observability.logging_setup import configure_logging
from workers.observability.metrics_endpoint import MetricsPortError
from workers.observability.tracing import configure_tracing
from workers.process_memory import hand_memory_back
from workers.settings import Settings, settings_or_exit


async def _serve(settings: Settings) -> None:
    runtime = await (start_lite(settings) if settings.mode == "lite" else start_full_api(settings))
    where = f" (data in {settings.data_dir})" if settings.mode == "lite" else ""
    print(
        f"sluice {settings.mode} mode listening on {settings.api.api_address.rsplit(':', 1)[0]}:"
        f"{runtime.port}{where}",
        flush=True,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runtime.stop()


def main(argv: Sequence[str] | None = None) -> int:
    hand_memory_back()  # before the threads that would each take an arena start
    parser = argparse.ArgumentParser(prog="sluice-server", description=__doc__)
    parser.add_argument(
        "--mode", choices=("lite", "full"), default=None, help="default: $SLUICE_MODE or lite"
    )
    parser.add_argument("--address", default=None, help="API address, e.g. 127.0.0.1:50051")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    overrides: dict[str, object] = {}
    if args.mode:
        overrides["mode"] = args.mode
    if args.address:
        overrides["api_address"] = args.address
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    settings = settings_or_exit(parser.prog, overrides)
    configure_logging(settings.telemetry)
    configure_tracing(settings.telemetry, "sluice-api" if settings.mode == "full" else "sluice")
    try:
        asyncio.run(_serve(settings))
    except BindError as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 1
    except MetricsPortError as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
