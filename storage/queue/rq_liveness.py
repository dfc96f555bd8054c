"""Whether a running RQ task still has a live worker: the task's own heartbeat key.

RQ learns that a worker died only when the job's time limit is over (2 h for an FAQ
import), so each attempt keeps ``P:queue:alive:<rq job id>`` alive from a thread of the
process running it, set with a TTL and renewed three times per TTL. A SIGKILLed worker
(its work horse dies with it) stops renewing and the key expires within one TTL:
housekeeping then reads the task as dead, removes its RQ record and queues the job again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from redis import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

DEFAULT_HEARTBEAT_TTL_S = 60.0


def alive_key(key_prefix: str, rq_job_id: str) -> str:
    return f"{key_prefix}:queue:alive:{rq_job_id}"


@contextmanager
def heartbeat(connection: Redis, key: str, ttl_s: float) -> Iterator[None]:
    """``key`` exists while the block runs (and at most ``ttl_s`` after its process died)."""
    stop = threading.Event()
    ttl_ms = max(1, int(ttl_s * 1000))

    def beat() -> None:
        while True:
            try:
                connection.set(key, b"1", px=ttl_ms)
            except RedisError:
                # Redis away: the next beat tries again; a key that expired meanwhile
                # makes housekeeping requeue the job, whose guarded writes stop this one.
                log.warning("heartbeat %s not written (Redis unreachable?)", key)
            if stop.wait(ttl_s / 3):
                return

    thread = threading.Thread(target=beat, name="sluice-task-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        try:
            connection.delete(key)
        except RedisError:
            log.warning("heartbeat %s not removed; it expires by itself", key)
