"""Progress bus over Redis pub/sub (full mode): workers publish with the sync client, the
asyncio gRPC server subscribes with ``redis.asyncio``, one channel per knowledge
(``<prefix>:progress:<knowledge id>``). API key revocations travel on one more channel
(``<prefix>:auth:revoked``), so every API process drops its key cache at once.

Pub/sub forgets messages sent while a subscriber is disconnected, so a subscription never
reconnects by itself: a broken connection, or a server that stops answering pings, ends the
iteration with EventBusError and the watcher re-reads the database.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any, cast

import redis.asyncio as aioredis
from redis import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from storage.events.base import EventBusError, ProgressEvent

logger = logging.getLogger(__name__)


class RedisEventBus:
    def __init__(
        self,
        redis_url: str,
        prefix: str,
        *,
        timeout_s: float = 3.0,
        keepalive_s: float = 5.0,
    ) -> None:
        """``timeout_s`` bounds connecting, publishing and the subscribe handshake; an idle
        subscription pings every ``keepalive_s`` and fails when a ping goes unanswered for
        as long."""
        self._url = redis_url
        self._prefix = prefix
        self._timeout_s = timeout_s
        self._keepalive_s = keepalive_s
        self._publisher = Redis.from_url(
            redis_url,
            socket_connect_timeout=timeout_s,
            socket_timeout=timeout_s,
            retry=Retry(NoBackoff(), 1),
        )

    def channel(self, knowledge_id: str) -> str:
        return f"{self._prefix}:progress:{knowledge_id}"

    def revocations_channel(self) -> str:
        return f"{self._prefix}:auth:revoked"

    def publish_revocation(self, subject: str) -> int:
        """Tell every API process that keys were revoked (``subject`` names them, for the
        logs); returns how many subscribers heard it. Raises RedisError, unlike
        ``publish``: the caller must know when the processes were not told."""
        return int(self._publisher.publish(self.revocations_channel(), subject))

    def publish(self, event: ProgressEvent) -> None:
        try:
            self._publisher.publish(self.channel(event.knowledge_id), event.to_json())
        except Exception as exc:
            logger.warning("dropping progress event for %s: %s", event.knowledge_id, exc)

    @asynccontextmanager
    async def subscribe(self, knowledge_id: str) -> AsyncIterator[AsyncIterator[ProgressEvent]]:
        async with self._subscription(self.channel(knowledge_id)) as pubsub:
            events = _RedisEvents(_Messages(pubsub, knowledge_id, self._keepalive_s))
            try:
                yield events
            finally:
                events.closed = True

    @asynccontextmanager
    async def subscribe_revocations(self) -> AsyncIterator[AsyncIterator[str]]:
        """Revocation notices (their subjects) from the moment the context is entered;
        iteration raises EventBusError when the subscription breaks."""
        async with self._subscription(self.revocations_channel()) as pubsub:
            yield _Notices(_Messages(pubsub, "key revocations", self._keepalive_s))

    @asynccontextmanager
    async def _subscription(self, channel: str) -> AsyncIterator[PubSub]:
        client = aioredis.Redis.from_url(
            self._url,
            socket_connect_timeout=self._timeout_s,
            retry=AsyncRetry(NoBackoff(), 0),
        )
        pubsub = client.pubsub()
        try:
            await self._subscribe(pubsub, channel)
            yield pubsub
        finally:
            # Closing the client's pool disconnects the pubsub's connection too. It may already
            # be dead; closing must not mask the caller's error.
            with suppress(Exception):
                await client.aclose()

    async def _subscribe(self, pubsub: PubSub, channel: str) -> None:
        """Subscribe and wait for the server's confirmation: from then on every publish to
        the channel reaches us."""
        try:
            async with asyncio.timeout(self._timeout_s):
                await pubsub.subscribe(channel)
                while True:
                    message = await pubsub.get_message(timeout=self._timeout_s)
                    if message is not None and message["type"] == "subscribe":
                        return
        except (RedisError, OSError, TimeoutError) as exc:
            raise EventBusError(f"cannot subscribe to {channel}: {exc!r}") from exc

    def close(self) -> None:
        self._publisher.close()


class _Messages:
    """The data messages of one subscription; pings an idle connection so that a server
    gone silent is noticed too. Once broken it stays broken."""

    def __init__(self, pubsub: PubSub, label: str, keepalive_s: float) -> None:
        self._pubsub = pubsub
        self.label = label
        self._keepalive_s = keepalive_s
        self._idle_since = time.monotonic()
        self._ping_sent_at: float | None = None
        self._broken: EventBusError | None = None

    async def next_data(self) -> Any:
        if self._broken is not None:
            raise self._broken
        try:
            while True:
                message = await self._next_message()
                if message["type"] == "message":
                    return message["data"]
                if message["type"] == "unsubscribe":
                    raise EventBusError(f"subscription for {self.label} was dropped")
        except EventBusError as exc:
            self._broken = exc
            raise

    async def _next_message(self) -> dict[str, Any]:
        """The next pub/sub message (pongs included)."""
        try:
            while True:
                message = await self._pubsub.get_message(timeout=min(1.0, self._keepalive_s))
                now = time.monotonic()
                if message is not None:
                    self._idle_since, self._ping_sent_at = now, None
                    return cast(dict[str, Any], message)
                if self._ping_sent_at is None:
                    if now - self._idle_since >= self._keepalive_s:
                        await self._pubsub.ping()
                        self._ping_sent_at = now
                elif now - self._ping_sent_at >= self._keepalive_s:
                    raise EventBusError(f"redis stopped answering pings ({self.label})")
        except (RedisError, OSError) as exc:
            raise EventBusError(f"subscription for {self.label} broke: {exc!r}") from exc


class _RedisEvents:
    """One knowledge's event iterator. Not a generator, so that a timeout or cancellation
    around one ``__anext__`` leaves it usable."""

    def __init__(self, messages: _Messages) -> None:
        self._messages = messages
        self.closed = False

    def __aiter__(self) -> _RedisEvents:
        return self

    async def __anext__(self) -> ProgressEvent:
        if self.closed:
            raise StopAsyncIteration
        while True:
            data = await self._messages.next_data()
            try:
                return ProgressEvent.from_json(data)
            except ValueError:
                logger.warning("ignoring malformed progress event for %s", self._messages.label)


class _Notices:
    """Revocation notices, decoded."""

    def __init__(self, messages: _Messages) -> None:
        self._messages = messages

    def __aiter__(self) -> _Notices:
        return self

    async def __anext__(self) -> str:
        data = await self._messages.next_data()
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
