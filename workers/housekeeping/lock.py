"""Only one housekeeper runs a round at a time across processes (full mode).

The lock expires by itself, so a housekeeper killed mid-round blocks the others for at
most ``ttl_s``; every write of a round is guarded anyway, so two overlapping rounds could
not undo each other, only do the same checks twice.
"""

from __future__ import annotations

import logging
from typing import Protocol

from redis import Redis
from redis.exceptions import LockError, RedisError

log = logging.getLogger(__name__)


class RoundLock(Protocol):
    def acquire(self) -> bool: ...

    def release(self) -> None: ...


class RedisRoundLock:
    def __init__(self, redis_url: str, key_prefix: str, *, ttl_s: float) -> None:
        self._redis = Redis.from_url(redis_url, socket_connect_timeout=5, socket_timeout=5)
        self._lock = self._redis.lock(f"{key_prefix}:housekeeping:round", timeout=ttl_s)

    def acquire(self) -> bool:
        try:
            return bool(self._lock.acquire(blocking=False))
        except RedisError:
            log.warning("housekeeping lock unavailable (Redis down?); round skipped")
            return False

    def release(self) -> None:
        try:
            self._lock.release()
        except (LockError, RedisError):
            # Expired, or Redis restarted and forgot it: nothing left to release.
            log.info("housekeeping lock was already gone at release")

    def close(self) -> None:
        self._redis.close()
