"""In-process progress bus for lite mode: publish from any thread, subscribe from asyncio.

Each subscriber has a bounded queue on its own event loop. A subscriber too slow to keep up
loses its oldest events and then receives a "resync" event (before the events still queued),
telling it to re-read the snapshot from the database.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from storage.events.base import ProgressEvent, resync_event

logger = logging.getLogger(__name__)

DEFAULT_MAX_QUEUED = 1000


class _Subscription:
    """The subscriber's event iterator. Not a generator, so that a timeout or cancellation
    around one ``__anext__`` leaves it usable."""

    def __init__(self, knowledge_id: str, loop: asyncio.AbstractEventLoop, max_queued: int):
        self.knowledge_id = knowledge_id
        self.loop = loop
        self._queue: asyncio.Queue[ProgressEvent] = asyncio.Queue(maxsize=max_queued)
        self._dropped = 0  # touched only on the loop's thread
        self.closed = False

    def deliver(self, event: ProgressEvent) -> None:
        """Runs on the subscriber's loop (via call_soon_threadsafe)."""
        if self._queue.full():
            self._queue.get_nowait()
            self._dropped += 1
        self._queue.put_nowait(event)

    def __aiter__(self) -> _Subscription:
        return self

    async def __anext__(self) -> ProgressEvent:
        if self.closed:
            raise StopAsyncIteration
        # Whatever is still queued is newer than what was dropped: resync comes first.
        if self._dropped:
            dropped, self._dropped = self._dropped, 0
            return resync_event(self.knowledge_id, dropped)
        return await self._queue.get()


class InMemoryEventBus:
    def __init__(self, *, max_queued: int = DEFAULT_MAX_QUEUED) -> None:
        if max_queued < 1:
            raise ValueError("max_queued must be >= 1")
        self._max_queued = max_queued
        self._lock = threading.Lock()
        self._subscriptions: dict[str, set[_Subscription]] = {}

    def publish(self, event: ProgressEvent) -> None:
        try:
            with self._lock:
                subscriptions = list(self._subscriptions.get(event.knowledge_id, ()))
            for subscription in subscriptions:
                try:
                    subscription.loop.call_soon_threadsafe(subscription.deliver, event)
                except RuntimeError:
                    # Its loop is closed: the subscriber is gone without leaving.
                    self._remove(subscription)
        except Exception:
            logger.exception("dropping progress event for %s", event.knowledge_id)

    @asynccontextmanager
    async def subscribe(self, knowledge_id: str) -> AsyncIterator[AsyncIterator[ProgressEvent]]:
        subscription = _Subscription(knowledge_id, asyncio.get_running_loop(), self._max_queued)
        with self._lock:
            self._subscriptions.setdefault(knowledge_id, set()).add(subscription)
        try:
            yield subscription
        finally:
            subscription.closed = True
            self._remove(subscription)

    def _remove(self, subscription: _Subscription) -> None:
        with self._lock:
            subscriptions = self._subscriptions.get(subscription.knowledge_id)
            if subscriptions is not None:
                subscriptions.discard(subscription)
                if not subscriptions:
                    del self._subscriptions[subscription.knowledge_id]

    def subscriber_count(self, knowledge_id: str) -> int:
        with self._lock:
            return len(self._subscriptions.get(knowledge_id, ()))
