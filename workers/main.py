"""`sluice-worker`: an RQ worker process of full mode (scale out by starting more of them).

``main`` is the process's composition root: it reads the settings once, builds every part
the task handlers use from them and installs that context before the first job is taken.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence

from storage.queue.base import QueueName
from storage.queue.rq_worker import run_worker
from workers.context import install_context
from workers.process_memory import hand_memory_back
from workers.settings import settings_or_exit
from workers.wiring import build_full_context


def main(argv: Sequence[str] | None = None) -> int:
    hand_memory_back()  # before the threads that would each take an arena start
    parser = argparse.ArgumentParser(prog="sluice-worker", description=__doc__)
    parser.add_argument(
        "--queues",
        default=",".join(q.value for q in QueueName),
        help="comma-separated queues in priority order (default: all)",
    )
    parser.add_argument("--burst", action="store_true", help="exit when the queues are empty")
    parser.add_argument("--name", default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    settings = settings_or_exit(parser.prog, {"mode": "full"})
    queues = [QueueName(q.strip()) for q in args.queues.split(",") if q.strip()]
    # Built from the settings just read (full mode, whatever SLUICE_MODE says) before the
    # first job is taken.
    ctx = build_full_context(settings)
    install_context(ctx)
    try:
        run_worker(
            settings.queue.redis_url,
            settings.queue.key_prefix,
            queues,
            burst=args.burst,
            name=args.name,
            simple=True,
            shutdown_grace_s=settings.queue.worker_shutdown_grace_s,
        )
    finally:
        install_context(None)
        ctx.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
