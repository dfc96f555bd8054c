"""`sluice-worker`: the RQ workers of full mode, on the queues given (or a pool's queues),
``--concurrency`` of them in as many processes (see storage.queue.pools for the pools and
the README's "Scaling out" for sizing).

``main`` is the process's composition root: it reads the settings once; each worker process
builds every part the task handlers use from them and installs that context before its
first job is taken.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence

from storage.queue.base import QueueName
from storage.queue.pools import POOL_QUEUES, Pool
from storage.queue.rq_pool import WorkerProcessFailed, run_worker_pool
from storage.queue.rq_worker import run_worker
from workers.context import install_context
from workers.net.service_ports import add_service_port
from workers.observability.logging_setup import configure_logging
from workers.observability.metrics_endpoint import MetricsPortError, mark_process_dead
from workers.observability.metrics_worker import serve_worker_metrics
from workers.observability.tracing import configure_tracing, flush_tracing
from workers.process_memory import hand_memory_back
from workers.settings import Settings, settings_or_exit
from workers.wiring import build_full_context


def main(argv: Sequence[str] | None = None) -> int:
    hand_memory_back()  # before the threads that would each take an arena start
    parser = _parser()
    args = parser.parse_args(argv)
    settings = settings_or_exit(parser.prog, {"mode": "full"})
    configure_logging(settings.telemetry)
    configure_tracing(settings.telemetry, "sluice-worker")
    pool = Pool(args.pool) if args.pool else None
    queues = _queues(parser, args.queues, pool)
    concurrency = args.concurrency
    if concurrency is None:
        concurrency = settings.queue.pool_size(pool) if pool else 1
    if concurrency < 1:
        parser.error(f"--concurrency must be >= 1, not {concurrency}")
    try:
        metrics = serve_worker_metrics(
            settings.metrics, settings.queue.redis_url, settings.queue.key_prefix
        )
    except MetricsPortError as exc:
        logging.getLogger(parser.prog).error("%s", exc)
        return 1
    if metrics is not None:
        add_service_port(metrics.port)  # the SSRF guard keeps the jobs' fetches off it
    try:
        return _run(settings, args, queues, concurrency)
    finally:
        if metrics is not None:
            metrics.stop()


def _run(
    settings: Settings, args: argparse.Namespace, queues: list[QueueName], concurrency: int
) -> int:
    if concurrency == 1:
        _work(settings, queues, args.name, args.burst)
        return 0

    def child(child_name: str, burst: bool) -> None:
        try:
            _work(settings, queues, f"{args.name}-{child_name[:8]}" if args.name else None, burst)
        finally:
            mark_process_dead()

    try:
        run_worker_pool(concurrency, settings.queue.redis_url, child, burst=args.burst)
    except WorkerProcessFailed as exc:
        logging.getLogger("sluice-worker").error("%s", exc)
        return 1
    return 0


def _work(settings: Settings, queues: list[QueueName], name: str | None, burst: bool) -> None:
    """One worker: its context built from the settings read (full mode, whatever
    SLUICE_MODE says) and installed before the first job is taken."""
    ctx = build_full_context(settings)
    install_context(ctx)
    try:
        run_worker(
            settings.queue.redis_url,
            settings.queue.key_prefix,
            queues,
            burst=burst,
            name=name,
            simple=True,
            shutdown_grace_s=settings.queue.worker_shutdown_grace_s,
            logging_level=settings.telemetry.log_level,  # RQ sets its loggers' level itself
        )
    finally:
        install_context(None)
        ctx.close()
        flush_tracing()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sluice-worker", description=__doc__)
    parser.add_argument(
        "--queues",
        default=None,
        help="comma-separated queues in priority order (default: the pool's, else all)",
    )
    parser.add_argument(
        "--pool",
        choices=[p.value for p in Pool],
        default=None,
        help="work on this pool's queues, --concurrency defaulting to its SLUICE_POOL_<NAME>",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="worker processes on these queues (default: the pool's size, else 1)",
    )
    parser.add_argument("--burst", action="store_true", help="exit when the queues are empty")
    parser.add_argument("--name", default=None)
    return parser


def _queues(
    parser: argparse.ArgumentParser, given: str | None, pool: Pool | None
) -> list[QueueName]:
    if given is None:
        return list(POOL_QUEUES[pool]) if pool else list(QueueName)
    names = [q.strip() for q in given.split(",") if q.strip()]
    known = {q.value for q in QueueName}
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        parser.error(f"--queues: unknown {unknown or 'none given'}; queues are {sorted(known)}")
    return [QueueName(n) for n in names]


if __name__ == "__main__":
    raise SystemExit(main())
