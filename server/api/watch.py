"""WatchSpans: a snapshot, then every span change, until the attempt is terminal.

Terminal means the knowledge's state is, and its round's spans are closed too: a cancelled
round's spans close when its worker actually stops (or, if no worker answers, when the API
closes them after ``STOP_GRACE_S``), so the stream waits for them, that long at most.

The subscription opens before the snapshot is read, so nothing published in between is
lost. Events are only hints: when one is missing (a dropped pub/sub message, a resync
marker, a quiet period) the watcher re-reads the database, which is the source of truth.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from sluice.v1 import knowledge_pb2

from server.api import convert
from storage.db.models import Knowledge
from storage.events.base import EventSubscriber, ProgressEvent
from workers.context import WorkerContext
from workers.pipeline.round_cleanup import STOP_GRACE_S
from workers.pipeline.spans import OPEN_STATUSES, span_to_dict
from workers.pipeline.state import TERMINAL

log = logging.getLogger(__name__)


@dataclass
class _View:
    attempt: int
    parse_status: str
    enable_status: str
    error_message: str
    spans: dict[str, dict[str, Any]]


class SpanWatcher:
    def __init__(self, ctx: WorkerContext, subscriber: EventSubscriber, poll_s: float) -> None:
        self._ctx = ctx
        self._subscriber = subscriber
        self._poll_s = poll_s

    def _load(self, knowledge: Knowledge, attempt: int) -> _View | None:
        row = self._ctx.knowledges.get(knowledge.id, knowledge.tenant_id)
        if row is None:
            return None
        chosen = attempt or row.attempt
        spans = {
            s.name: span_to_dict(s)
            for s in self._ctx.spans.list(row.id, chosen, tenant_id=row.tenant_id)
        }
        return _View(chosen, row.parse_status, row.enable_status, row.error_message or "", spans)

    async def watch(
        self, knowledge: Knowledge, attempt: int
    ) -> AsyncIterator[knowledge_pb2.WatchSpansResponse]:
        async with (
            self._subscriber.subscribe(knowledge.id) as events,
            _Hints(events, self._poll_s) as hints,
        ):
            view = await asyncio.to_thread(self._load, knowledge, attempt)
            if view is None:
                return
            yield _message(knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT, view, view.spans.values())
            ended = _Ending()
            while not ended.reached(view):
                event = await hints.next()
                if event is not None and event.kind == "span" and event.attempt == view.attempt:
                    data = event.data
                    if view.spans.get(data["name"]) != data:
                        view.spans[data["name"]] = data
                        yield _message(knowledge_pb2.WATCH_EVENT_TYPE_SPAN, view, [data])
                    continue
                # A state change, a resync marker, another attempt or silence: re-read.
                fresh = await asyncio.to_thread(self._load, knowledge, attempt)
                if fresh is None:
                    view.parse_status = "deleting"
                    break
                if fresh.attempt != view.attempt:
                    view = fresh
                    yield _message(
                        knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT, view, view.spans.values()
                    )
                    continue
                changed = [s for n, s in fresh.spans.items() if view.spans.get(n) != s]
                view = fresh
                if changed:
                    yield _message(knowledge_pb2.WATCH_EVENT_TYPE_SPAN, view, changed)
            yield _message(knowledge_pb2.WATCH_EVENT_TYPE_END, view, view.spans.values())


class _Ending:
    """When the stream may end: at once for a deleted knowledge (its spans are gone); for a
    terminal one, once no span is open or the grace for the spans to close has passed."""

    # Beyond the API's own grace, a watcher waits one more moment to see it close them.
    WAIT_S = STOP_GRACE_S + 2.0

    def __init__(self) -> None:
        self._terminal_since: float | None = None

    def reached(self, view: _View) -> bool:
        if view.parse_status == "deleting":
            return True
        if view.parse_status not in TERMINAL:
            self._terminal_since = None
            return False
        now = time.monotonic()
        if self._terminal_since is None:
            self._terminal_since = now
        open_spans = any(span["status"] in OPEN_STATUSES for span in view.spans.values())
        return not open_spans or now - self._terminal_since >= self.WAIT_S


class _Hints:
    """Events pumped into a queue by a task of their own, so that a poll timeout never
    cancels the subscriber's iterator; once the bus gives up, the watcher just polls."""

    def __init__(self, events: AsyncIterator[ProgressEvent], poll_s: float) -> None:
        self._events = events
        self._poll_s = poll_s
        self._queue: asyncio.Queue[ProgressEvent | None] = asyncio.Queue()
        self._closed = False
        self._pump: asyncio.Task[None] | None = None

    async def __aenter__(self) -> _Hints:
        self._pump = asyncio.create_task(self._run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._pump

    async def _run(self) -> None:
        try:
            async for event in self._events:
                await self._queue.put(event)
        except Exception:  # the bus failed: the database still answers
            log.warning("progress bus failed; watcher falls back to polling", exc_info=True)
        finally:
            await self._queue.put(None)

    async def next(self) -> ProgressEvent | None:
        if self._closed:
            await asyncio.sleep(self._poll_s)
            return None
        try:
            event = await asyncio.wait_for(self._queue.get(), self._poll_s)
        except TimeoutError:
            return None
        if event is None:
            self._closed = True
        return event


def _message(kind: int, view: _View, spans: Any) -> knowledge_pb2.WatchSpansResponse:
    return knowledge_pb2.WatchSpansResponse(
        type=kind,  # type: ignore[arg-type]
        attempt=view.attempt,
        spans=[convert.span(s) for s in spans],
        parse_status=convert.parse_status(view.parse_status),
        enable_status=convert.enable_status(view.enable_status),
        error_message=view.error_message,
    )
