"""Fan-out of progress events inside one API process: one bus subscription per watched
knowledge, however many streams watch it.

Each event is decoded and converted once, then pushed to every watcher's bounded inbox; a
watcher too slow to keep up loses its queued items and gets RESYNC instead (it re-reads its
state from the database), so it never holds up the others nor grows memory. A state event,
a re-subscription after the bus broke, and a timer every ``recheck_s`` (the safety net for
lost pub/sub messages) each make ONE database read per knowledge, shared by its watchers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

from server.api.watch_encoding import SharedEncodings
from server.api.watch_state import DocState, KnownSpans, SpanState, read_state
from server.services.progress import ProgressReads
from storage.events.base import EventSubscriber, ProgressEvent

log = logging.getLogger(__name__)


class _Resync:
    """The inbox overflowed: what it held is gone, re-read the database."""


RESYNC: Final = _Resync()
InboxItem = SpanState | DocState | _Resync

# How long a new watcher waits for its knowledge's first subscription to be confirmed; past
# it the watcher goes on (the shared re-check covers what the bus misses).
_SUBSCRIBE_WAIT_S = 5.0
_RESUBSCRIBE_DELAY_S = 1.0


class Inbox:
    """One watcher's bounded queue of items, filled by its knowledge's feed. A deque and
    one waiter rather than an asyncio.Queue: the stream takes everything queued in one go,
    and a push costs an append (and one wake-up when the stream waits), which matters at
    hundreds of streams per change."""

    def __init__(self, max_items: int) -> None:
        self._max_items = max_items
        self._items: deque[InboxItem] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def push(self, item: InboxItem) -> None:
        if len(self._items) >= self._max_items:
            self._items.clear()
            item = RESYNC
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def take(self, timeout_s: float | None) -> list[InboxItem]:
        """Every item queued, waiting for one if there is none; [] after ``timeout_s``
        (None: wait as long as it takes)."""
        if not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait_for(self._waiter, timeout_s)
            except TimeoutError:
                return []
            finally:
                self._waiter = None
        items = list(self._items)
        self._items.clear()
        return items


class Feed:
    """The subscription and the shared re-reads of one knowledge, while anyone watches it."""

    def __init__(self, hub: WatchHub, knowledge_id: str) -> None:
        self._hub = hub
        self.knowledge_id = knowledge_id
        self.inboxes: set[Inbox] = set()
        self.live = asyncio.Event()
        self.encodings = SharedEncodings()
        self.known = KnownSpans()
        self._stale = asyncio.Event()
        self._last_read: tuple[object, ...] | None = None
        self._tasks = (
            asyncio.create_task(self._listen(), name=f"watch-feed:{knowledge_id}"),
            asyncio.create_task(self._recheck(), name=f"watch-recheck:{knowledge_id}"),
        )

    def stop(self) -> None:
        """Cancel the subscription and the re-checks; they end on their own (nothing to wait
        for here, so a stream can leave even while its generator is being closed)."""
        for task in self._tasks:
            task.cancel()

    async def read(self, attempt: int) -> DocState:
        """A read of the database, in a thread; its span states are remembered."""
        state = await asyncio.to_thread(
            read_state, self._hub.reads, self.knowledge_id, attempt, self.known
        )
        for span in state.spans.values():
            self.known.remember(span)
        return state

    def _broadcast(self, item: InboxItem) -> None:
        for inbox in tuple(self.inboxes):
            inbox.push(item)

    def request_recheck(self) -> None:
        self._stale.set()

    async def _listen(self) -> None:
        resubscribing = False
        while True:
            try:
                async with self._hub.subscriber.subscribe(self.knowledge_id) as events:
                    self.live.set()
                    if resubscribing:  # what was published while we were away
                        self.request_recheck()
                    async for event in events:
                        self._on_event(event)
            except Exception:  # the bus broke: watchers live on the re-checks meanwhile
                log.warning(
                    "progress subscription for %s broke; resubscribing",
                    self.knowledge_id,
                    exc_info=True,
                )
            resubscribing = True
            self.live.set()
            self.request_recheck()
            await asyncio.sleep(_RESUBSCRIBE_DELAY_S)

    def _on_event(self, event: ProgressEvent) -> None:
        if event.kind != "span":  # a status change, or events lost: one shared re-read
            self.request_recheck()
            return
        try:
            change = SpanState.from_dict(event.data)
        except (KeyError, ValueError, TypeError):
            log.warning("ignoring malformed span event for %s", self.knowledge_id)
            self.request_recheck()
            return
        self.known.remember(change)
        self._broadcast(change)

    async def _recheck(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._hub.recheck_s):
                    await self._stale.wait()
            self._stale.clear()
            try:
                state = await self.read(0)
            except Exception:
                log.warning("re-reading %s failed", self.knowledge_id, exc_info=True)
                continue
            # An unchanged read tells no stream anything: idle streams are not woken up.
            summary = (
                state.watermark,
                state.attempt,
                state.parse_status,
                state.enable_status,
                state.error_message,
            )
            if summary != self._last_read:
                self._last_read = summary
                self._broadcast(state)


class WatchHub:
    def __init__(
        self,
        reads: ProgressReads,
        subscriber: EventSubscriber,
        *,
        recheck_s: float,
        inbox_items: int,
    ) -> None:
        self.reads = reads
        self.subscriber = subscriber
        self.recheck_s = recheck_s
        self._inbox_items = inbox_items
        self._feeds: dict[str, Feed] = {}

    @asynccontextmanager
    async def join(self, knowledge_id: str) -> AsyncIterator[tuple[Inbox, Feed]]:
        """An inbox that receives every change of the knowledge from the moment this returns
        (the subscription is live, unless the bus is down), so a watcher reads its snapshot
        AFTER joining and misses nothing."""
        feed = self._feeds.get(knowledge_id)
        if feed is None:
            feed = self._feeds[knowledge_id] = Feed(self, knowledge_id)
        inbox = Inbox(self._inbox_items)
        feed.inboxes.add(inbox)
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_SUBSCRIBE_WAIT_S):
                    await feed.live.wait()
            yield inbox, feed
        finally:
            feed.inboxes.discard(inbox)
            if not feed.inboxes and self._feeds.get(knowledge_id) is feed:
                del self._feeds[knowledge_id]
                feed.stop()

    def feed(self, knowledge_id: str) -> Feed | None:
        """The knowledge's feed while anyone watches it."""
        return self._feeds.get(knowledge_id)

    def feed_count(self) -> int:
        return len(self._feeds)
