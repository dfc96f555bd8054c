"""Cancel registries: a request marks exactly one (group, attempt) round, and expires."""

from __future__ import annotations

import time

from redis import Redis

from storage.queue.cancel import CancelRegistry, InMemoryCancelRegistry, RedisCancelRegistry
from tests.integration.queue.conftest import REDIS_URL


def check_marks_one_round(registry: CancelRegistry) -> None:
    assert not registry.is_cancelled("k1", 2)
    registry.request_cancel("k1", 2)
    assert registry.is_cancelled("k1", 2)
    assert not registry.is_cancelled("k1", 3)  # a newer attempt is not cancelled
    assert not registry.is_cancelled("k2", 2)


def test_redis_registry_marks_one_round_and_expires(redis_client: Redis, key_prefix: str) -> None:
    check_marks_one_round(RedisCancelRegistry(redis_client, key_prefix))

    short = RedisCancelRegistry(redis_client, key_prefix, ttl_s=1)
    short.request_cancel("k9", 1)
    assert short.is_cancelled("k9", 1)
    time.sleep(1.2)
    assert not short.is_cancelled("k9", 1)


def test_redis_registry_is_seen_by_other_connections_of_its_prefix_only(
    redis_client: Redis, key_prefix: str
) -> None:
    other_client = Redis.from_url(REDIS_URL)
    try:
        RedisCancelRegistry(redis_client, key_prefix).request_cancel("k1", 1)
        assert RedisCancelRegistry(other_client, key_prefix).is_cancelled("k1", 1)
        assert not RedisCancelRegistry(other_client, f"{key_prefix}x").is_cancelled("k1", 1)
    finally:
        other_client.close()


def test_memory_registry_marks_one_round_and_expires() -> None:
    check_marks_one_round(InMemoryCancelRegistry())

    short = InMemoryCancelRegistry(ttl_s=0.2)
    short.request_cancel("k9", 1)
    assert short.is_cancelled("k9", 1)
    time.sleep(0.3)
    assert not short.is_cancelled("k9", 1)
