"""Blocking work handed to threads, under asyncio cancellation.

A cancelled ``await asyncio.to_thread(...)`` stops waiting, not the thread: the work goes on
with the object it was given. Whoever then closes that object must wait for the work first
(closing a file under a write, or a stream under a read that holds its lock), and must not
wait on the event loop, which would stall every other call of the process meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


async def close_after(work: asyncio.Task[Any] | None, close: Callable[[], object]) -> None:
    """Run ``close`` in a thread once ``work`` (a task around a thread's work on what
    ``close`` closes; kept alive with ``asyncio.shield`` when its caller was cancelled) has
    ended. Await this shielded too, so the close happens even if the caller is cancelled
    again."""
    if work is not None:
        await asyncio.wait([work])
        # Its error, if any, matters no more than the one being raised; retrieving it keeps
        # asyncio from logging it as unhandled.
        if not work.cancelled():
            work.exception()
    await asyncio.to_thread(close)
