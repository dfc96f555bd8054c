"""Cooperative cancellation of one processing round (group + attempt, e.g. a knowledge id and
its parse attempt): the API requests it, the running handler checks it between pages, batches
and stages. A request for attempt N leaves a newer attempt N+1 untouched."""

from __future__ import annotations

import threading
import time
from typing import Protocol

from redis import Redis
from redis.exceptions import RedisError

from storage.queue.base import QueueError

DEFAULT_TTL_S = 24 * 3600


class CancelRegistry(Protocol):
    def request_cancel(self, group: str, attempt: int) -> None: ...

    def is_cancelled(self, group: str, attempt: int) -> bool: ...


class RedisCancelRegistry:
    """One key per cancelled round; the TTL outlives any task's time limit."""

    def __init__(self, redis: Redis, prefix: str, *, ttl_s: int = DEFAULT_TTL_S) -> None:
        self._redis = redis
        self._prefix = prefix
        self._ttl_s = ttl_s

    def _key(self, group: str, attempt: int) -> str:
        return f"{self._prefix}:cancel:{group}:{attempt}"

    def request_cancel(self, group: str, attempt: int) -> None:
        try:
            self._redis.set(self._key(group, attempt), b"1", ex=self._ttl_s)
        except RedisError as exc:
            raise QueueError(f"cancel request for {group}/{attempt} failed: {exc}") from exc

    def is_cancelled(self, group: str, attempt: int) -> bool:
        try:
            return bool(self._redis.exists(self._key(group, attempt)))
        except RedisError as exc:
            raise QueueError(f"cancel check for {group}/{attempt} failed: {exc}") from exc


class InMemoryCancelRegistry:
    """The same for lite mode; thread-safe, entries expire after ``ttl_s``."""

    def __init__(self, *, ttl_s: float = DEFAULT_TTL_S) -> None:
        self._ttl_s = ttl_s
        self._lock = threading.Lock()
        self._expiry: dict[tuple[str, int], float] = {}

    def request_cancel(self, group: str, attempt: int) -> None:
        now = time.monotonic()
        with self._lock:
            self._expiry = {key: at for key, at in self._expiry.items() if at > now}
            self._expiry[(group, attempt)] = now + self._ttl_s

    def is_cancelled(self, group: str, attempt: int) -> bool:
        with self._lock:
            expires_at = self._expiry.get((group, attempt))
        return expires_at is not None and expires_at > time.monotonic()
