"""Full mode: follow the Redis channel on which the admin tool announces revoked keys and
deleted tenants, and keep the authenticator's cache honest.

While subscribed, every notice empties the key cache. A subscription that breaks (Redis
restarted, a ping unanswered for ``keepalive_s``) turns caching off until a new one is
live, since notices sent in between are lost; so a revoked key never outlives the notice
by more than the time it takes to notice a dead connection.
"""

from __future__ import annotations

import asyncio
import logging

from server.api.auth import Authenticator
from storage.events.base import EventBusError
from storage.events.redis_bus import RedisEventBus

log = logging.getLogger(__name__)

RESUBSCRIBE_DELAY_S = 1.0


async def follow_revocations(bus: RedisEventBus, auth: Authenticator) -> None:
    """Runs until cancelled; says once when the feed goes down, not at every retry."""
    down = False
    while True:
        try:
            async with bus.subscribe_revocations() as notices:
                auth.feed_started()
                if down:
                    log.info("key revocation feed is back: caching keys again")
                down = False
                async for subject in notices:
                    log.info("API keys revoked (%s): key cache emptied", subject)
                    auth.forget_all()
        except EventBusError as exc:
            if not down:
                log.warning("key revocation feed down, caching no keys until it is back: %s", exc)
            down = True
        finally:
            auth.feed_lost()
        await asyncio.sleep(RESUBSCRIBE_DELAY_S)
