"""`sluice-housekeeper`: the housekeeping rounds of full mode, as a process of its own.

Run one next to the workers (more are harmless: a lock in Redis lets one round run at a
time). It needs the same SLUICE_* settings as the workers: database, Redis, Milvus. Started
before the API has migrated the database, it waits for the schema before its first round.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import threading
from collections.abc import Sequence
from types import FrameType

from workers.housekeeping.lock import RedisRoundLock
from workers.housekeeping.runner import Housekeeper
from workers.housekeeping.schema_wait import wait_for_schema
from workers.observability.logging_setup import configure_logging
from workers.observability.metrics_endpoint import MetricsEndpoint, MetricsPortError, serve_metrics
from workers.observability.tracing import configure_tracing
from workers.settings import settings_or_exit
from workers.wiring import build_full_process_context

log = logging.getLogger(__name__)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sluice-housekeeper", description=__doc__)
    parser.add_argument("--once", action="store_true", help="run one round, print it, exit")
    args = parser.parse_args(argv)
    settings = settings_or_exit(parser.prog, {"mode": "full"})
    configure_logging(settings.telemetry)
    configure_tracing(settings.telemetry, "sluice-housekeeper")
    if not settings.housekeeping.housekeeping_enabled and not args.once:
        log.info("housekeeping is disabled (SLUICE_HOUSEKEEPING_ENABLED); exiting")
        return 0
    # Not for --once: run by hand next to a running housekeeper, it would find the port taken.
    port = 0 if args.once else settings.metrics.housekeeper_metrics_port
    endpoint: MetricsEndpoint | None = None
    if port:
        try:
            endpoint = serve_metrics(settings.metrics.metrics_host, port)
        except MetricsPortError as exc:
            log.error("%s", exc)
            return 1
        log.info("/metrics on port %d", endpoint.port)
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    if not wait_for_schema(settings.storage.database_url, stop):
        return 0
    ctx = build_full_process_context(settings)
    # A round that outlives its lock is still safe; the TTL only bounds a dead holder.
    lock_ttl_s = max(60.0, 2 * settings.housekeeping.housekeeping_interval_s)
    lock = RedisRoundLock(settings.queue.redis_url, settings.queue.key_prefix, ttl_s=lock_ttl_s)
    housekeeper = Housekeeper(ctx, lock)
    try:
        if args.once:
            report = housekeeper.run_once()
            print(json.dumps(report.as_dict() if report else {"skipped": "lock held"}))
            return 0
        log.info(
            "housekeeper running: every %ss, stale after %ss, up to %d automatic requeues",
            settings.housekeeping.housekeeping_interval_s,
            settings.stale_threshold_s,
            settings.housekeeping.max_auto_requeues,
        )
        housekeeper.run_forever(stop)
        return 0
    finally:
        lock.close()
        ctx.close()
        if endpoint is not None:
            endpoint.stop()
