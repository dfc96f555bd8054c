"""Watching a long job (an FAQ import, a knowledge base clone, a move): its progress now,
then again whenever it changes, until it ends.

The job's row is the truth. The job's worker publishes ``job_changed_event(job_id)`` on the
progress bus (keyed by the job's id, as spans are keyed by a knowledge's), which only wakes
the watcher to read the row again; a read every ``poll_s`` covers an event that was lost,
and a bus that cannot be reached leaves the watcher polling."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from typing import TypeVar

from storage.events.base import EventBusError, EventSubscriber, ProgressEvent

T = TypeVar("T")

# How long a watcher waits for an event before it reads the row anyway.
DEFAULT_POLL_S = 2.0


async def watch_job(
    subscriber: EventSubscriber,
    job_id: str,
    read: Callable[[], Awaitable[T]],
    ended: Callable[[T], bool],
    *,
    poll_s: float = DEFAULT_POLL_S,
) -> AsyncIterator[T]:
    """``read()`` the job's progress (raising if it is gone), yield it, and yield it again
    each time it differs from the last one yielded; the last one yielded is ``ended``."""
    async with AsyncExitStack() as stack:
        events: AsyncIterator[ProgressEvent] | None
        try:
            # Subscribed before the first read: nothing published after it is missed.
            events = await stack.enter_async_context(subscriber.subscribe(job_id))
        except EventBusError:
            events = None
        last = await read()
        yield last
        while not ended(last):
            events = await _wait_for_change(events, poll_s)
            current = await read()
            if current != last:
                last = current
                yield current


async def _wait_for_change(
    events: AsyncIterator[ProgressEvent] | None, poll_s: float
) -> AsyncIterator[ProgressEvent] | None:
    """Until an event arrives or ``poll_s`` passes; the events to wait on next time (None
    once the subscription broke)."""
    if events is None:
        await asyncio.sleep(poll_s)
        return None
    try:
        await asyncio.wait_for(anext(events), poll_s)
    except TimeoutError:
        pass
    except (EventBusError, StopAsyncIteration):
        await asyncio.sleep(poll_s)
        return None
    return events
