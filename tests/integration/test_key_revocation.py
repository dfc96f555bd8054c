"""The API's key cache against a real database and Redis: without a live revocation feed
no key is cached (a revoked key is refused at the next call); with one, keys are cached,
a revocation notice empties the cache at once, and a key whose notice never came is
read again once its cache life (judged by the injected clock) is over."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import grpc
import pytest
from redis.exceptions import RedisError

from core.clock import ManualClock
from server.api.auth import CACHE_TTL_S, Authenticator
from server.api.errors import ApiError
from server.api.key_revocations import follow_revocations
from storage.db.engine import Database
from storage.db.migrate import upgrade_to_head
from storage.db.repositories.tenants import TenantRepository
from storage.events.redis_bus import RedisEventBus
from tests.integration.events.test_buses import PrivateRedis
from tests.support.databases import REDIS_URL


def _metadata(key: str) -> list[tuple[str, str | bytes]]:
    return [("authorization", f"Bearer {key}")]


async def _feed_live(bus: RedisEventBus) -> None:
    """Live once a notice reaches a subscriber (the notice itself empties nothing yet)."""
    deadline = time.monotonic() + 10
    while await asyncio.to_thread(bus.publish_revocation, "warm-up") < 1:
        assert time.monotonic() < deadline, "the feed never subscribed"
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # the warm-up notice has been handled


async def _refused(auth: Authenticator, key: str) -> bool:
    try:
        await auth.identify_metadata(_metadata(key))
    except ApiError as error:
        assert error.code == grpc.StatusCode.UNAUTHENTICATED
        return True
    return False


@pytest.fixture
def tenants(tmp_path: Path) -> TenantRepository:
    url = f"sqlite:///{tmp_path / 'keys.db'}"
    upgrade_to_head(url)
    return TenantRepository(Database.from_url(url))


def test_without_a_feed_a_revoked_key_is_refused_at_the_next_call(
    tenants: TenantRepository,
) -> None:
    tenant = tenants.create_tenant("lite")
    new = tenants.create_api_key(tenant.id, "k")
    auth = Authenticator(tenants, required=True, default_tenant_id=tenant.id)

    async def scenario() -> None:
        identity = await auth.identify_metadata(_metadata(new.key))
        assert identity.tenant_id == tenant.id
        assert tenants.revoke_api_key(new.key_id)  # nobody is told
        assert await _refused(auth, new.key)

    asyncio.run(scenario())


def test_a_notice_empties_the_cache_of_a_live_feed(tenants: TenantRepository) -> None:
    tenant = tenants.create_tenant("full")
    new = tenants.create_api_key(tenant.id, "k")
    bus = RedisEventBus(REDIS_URL, f"sluice-test-{uuid.uuid4().hex[:8]}")
    auth = Authenticator(tenants, required=True, default_tenant_id=tenant.id)

    async def scenario() -> float:
        following = asyncio.create_task(follow_revocations(bus, auth))
        try:
            await _feed_live(bus)
            assert (await auth.identify_metadata(_metadata(new.key))).tenant_id == tenant.id
            assert tenants.revoke_api_key(new.key_id)
            # Cached: the database says revoked, but nobody was told yet.
            assert not await _refused(auth, new.key)
            told_at = time.monotonic()
            await asyncio.to_thread(bus.publish_revocation, f"key {new.key_id}")
            while not await _refused(auth, new.key):
                assert time.monotonic() - told_at < 5, "the notice never emptied the cache"
                await asyncio.sleep(0.01)
            return time.monotonic() - told_at
        finally:
            following.cancel()
            await asyncio.gather(following, return_exceptions=True)

    try:
        assert asyncio.run(scenario()) < 1.0
    finally:
        bus.close()


def test_a_key_whose_notice_never_came_is_read_again_after_its_cache_life(
    tenants: TenantRepository,
) -> None:
    tenant = tenants.create_tenant("lost-notice")
    new = tenants.create_api_key(tenant.id, "k")
    bus = RedisEventBus(REDIS_URL, f"sluice-test-{uuid.uuid4().hex[:8]}")
    clock = ManualClock()
    auth = Authenticator(tenants, required=True, default_tenant_id=tenant.id, clock=clock)

    async def scenario() -> None:
        following = asyncio.create_task(follow_revocations(bus, auth))
        try:
            await _feed_live(bus)
            assert (await auth.identify_metadata(_metadata(new.key))).tenant_id == tenant.id
            assert tenants.revoke_api_key(new.key_id)  # and the notice is lost
            clock.advance(CACHE_TTL_S - 1)
            assert not await _refused(auth, new.key)  # still within its cache life
            clock.advance(1)
            assert await _refused(auth, new.key)
        finally:
            following.cancel()
            await asyncio.gather(following, return_exceptions=True)

    try:
        asyncio.run(scenario())
    finally:
        bus.close()


def test_keys_are_not_cached_while_the_feed_is_down(
    tenants: TenantRepository, tmp_path: Path
) -> None:
    redis = PrivateRedis(str(tmp_path))
    redis.start()
    bus = RedisEventBus(redis.url, "sluice-test")
    tenant = tenants.create_tenant("outage")
    first, second = tenants.create_api_key(tenant.id, "a"), tenants.create_api_key(tenant.id, "b")
    auth = Authenticator(tenants, required=True, default_tenant_id=tenant.id)

    async def subscribed() -> None:
        deadline = time.monotonic() + 10
        while await asyncio.to_thread(_heard_by, bus) < 1:
            assert time.monotonic() < deadline, "the feed never subscribed"
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.2)

    async def scenario() -> None:
        following = asyncio.create_task(follow_revocations(bus, auth))
        try:
            await subscribed()
            await auth.identify_metadata(_metadata(first.key))
            redis.stop()  # the subscription breaks: whatever was cached may be stale now
            assert tenants.revoke_api_key(first.key_id)  # and no notice can be sent
            deadline = time.monotonic() + 5
            while not await _refused(auth, first.key):
                assert time.monotonic() < deadline, "a key stayed cached with the feed down"
                await asyncio.sleep(0.05)
            redis.start()
            await subscribed()  # back: caching again, so a silent revocation goes unseen
            await auth.identify_metadata(_metadata(second.key))
            assert tenants.revoke_api_key(second.key_id)
            assert not await _refused(auth, second.key)
        finally:
            following.cancel()
            await asyncio.gather(following, return_exceptions=True)

    try:
        asyncio.run(scenario())
    finally:
        bus.close()
        redis.stop()


def _heard_by(bus: RedisEventBus) -> int:
    try:
        return bus.publish_revocation("probe")
    except RedisError:
        return 0
