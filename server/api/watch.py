"""WatchSpans: a snapshot, then every span change, until the attempt is terminal.

Every span change carries its knowledge's next sequence number. A stream shows a span only
in a state newer than the one it last showed (or than its snapshot), so it never goes
backwards nor repeats itself; ``sequence`` in each message is the stream's watermark (every
change up to it has been shown), from which a reconnecting client resumes
(``after_sequence`` + ``after_attempt``): it is then sent only what changed since.

Terminal means the knowledge's state is, and its round's spans are closed too: a cancelled
round's spans close when its worker actually stops (or, if no worker answers, when the API
closes them after ``STOP_GRACE_S``), so the stream waits for them, that long at most.

The stream joins its knowledge's feed (one bus subscription per knowledge in this process,
see watch_hub) before it reads its snapshot, so nothing published in between is lost.
Streams in step send the same messages: each is serialized once for all of them
(watch_encoding), and the stream yields the bytes.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Iterable

from sluice.v1 import knowledge_pb2

from core.statuses import OPEN_SPAN_STATUSES, TERMINAL, ParseStatus
from server.api import convert
from server.api.watch_encoding import SharedEncodings, message_key
from server.api.watch_hub import RESYNC, Feed, InboxItem, WatchHub
from server.api.watch_state import DocState, SpanState, Watermark
from server.services.progress import ProgressReads
from storage.events.base import EventSubscriber
from workers.pipeline.round.cleanup import STOP_GRACE_S

SNAPSHOT = knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT
SPAN = knowledge_pb2.WATCH_EVENT_TYPE_SPAN
END = knowledge_pb2.WATCH_EVENT_TYPE_END
# A watcher this many items behind is resynchronised from the database instead.
INBOX_ITEMS = 512


class SpanWatcher:
    def __init__(self, reads: ProgressReads, subscriber: EventSubscriber, recheck_s: float) -> None:
        self.hub = WatchHub(reads, subscriber, recheck_s=recheck_s, inbox_items=INBOX_ITEMS)

    async def watch(
        self, knowledge_id: str, attempt: int, *, after_sequence: int = 0, after_attempt: int = 0
    ) -> AsyncGenerator[bytes]:
        """The stream's messages, serialized."""
        async with self.hub.join(knowledge_id) as (inbox, feed):
            state = await feed.read(attempt)
            if state.deleted:
                return
            stream = _Stream(attempt, state, feed.encodings)
            yield stream.opening(after_sequence, after_attempt)
            ending = _Ending()
            while not ending.reached(stream):
                queued = await inbox.take(ending.wait_s(stream))
                if not queued:  # the grace for open spans ran out
                    continue
                # Whatever queued up meanwhile goes out together: a stream that fell behind
                # sends fewer, fuller messages (each span in its latest state) and catches up.
                items = [await feed.read(attempt) if item is RESYNC else item for item in queued]
                message = stream.apply(items, feed)
                if message is not None:
                    yield message
            yield stream.message(END, stream.spans.values())


class _Stream:
    """What one stream has shown: the attempt, the statuses and each span's latest state."""

    def __init__(self, requested_attempt: int, state: DocState, encodings: SharedEncodings) -> None:
        self._encodings = encodings
        self._follows_latest = requested_attempt == 0
        self._read_watermark = state.watermark
        self.attempt = state.attempt
        self.parse_status = state.parse_status
        self.enable_status = state.enable_status
        self.error_message = state.error_message
        self.spans = dict(state.spans)
        self.watermark = Watermark(state.watermark)
        for span in state.spans.values():
            self.watermark.seen(span.sequence)

    def opening(self, after_sequence: int, after_attempt: int) -> bytes:
        if after_sequence > 0 and after_attempt == self.attempt:
            newer = [s for s in self.spans.values() if s.sequence > after_sequence]
            return self.message(SPAN, sorted(newer, key=lambda s: s.sequence))
        return self.message(SNAPSHOT, self.spans.values())

    def open_spans(self) -> bool:
        return any(span.status in OPEN_SPAN_STATUSES for span in self.spans.values())

    def apply(self, items: Iterable[InboxItem], feed: Feed) -> bytes | None:
        """Take in ``items``; the one message that shows what they changed, if anything: a
        SNAPSHOT when the stream moved to a newer attempt, else a SPAN event."""
        changed: dict[str, SpanState] = {}
        switched = False
        for item in items:
            if isinstance(item, SpanState):
                changed.update((s.name, s) for s in self._apply_change(item, feed))
            elif isinstance(item, DocState):
                newer = self._apply_read(item)
                if newer is None:
                    switched, changed = True, {}
                else:
                    changed.update((s.name, s) for s in newer)
        if switched:
            return self.message(SNAPSHOT, self.spans.values())
        if changed:
            return self.message(SPAN, sorted(changed.values(), key=lambda s: s.sequence))
        return None

    def _apply_change(self, change: SpanState, feed: Feed) -> list[SpanState]:
        self.watermark.seen(change.sequence)
        if change.attempt == self.attempt:
            if self._is_newer(change):
                self.spans[change.name] = change
                return [change]
        elif change.attempt > self.attempt and self._follows_latest:
            feed.request_recheck()  # a newer round began: its snapshot comes from one read
        return []

    def _apply_read(self, state: DocState) -> list[SpanState] | None:
        """The spans this read shows newer; None when the stream moved to its attempt."""
        if state.deleted:
            self.parse_status = ParseStatus.DELETING
            return []
        if state.watermark < self._read_watermark:
            return []  # an older read than one already applied
        self._read_watermark = state.watermark
        self.parse_status = state.parse_status
        self.enable_status = state.enable_status
        self.error_message = state.error_message
        if self._follows_latest and state.attempt > self.attempt:
            self.attempt = state.attempt
            self.spans = dict(state.spans)
            self._raise_watermark(state)
            return None
        if state.attempt != self.attempt:
            return []
        newer = [s for s in state.spans.values() if self._is_newer(s)]
        for span in newer:
            self.spans[span.name] = span
        self._raise_watermark(state)
        return newer

    def _raise_watermark(self, state: DocState) -> None:
        self.watermark.raise_to(state.watermark)
        for span in state.spans.values():
            self.watermark.seen(span.sequence)

    def _is_newer(self, span: SpanState) -> bool:
        shown = self.spans.get(span.name)
        return shown is None or span.sequence > shown.sequence

    def message(self, kind: knowledge_pb2.WatchEventType, spans: Iterable[SpanState]) -> bytes:
        shown = list(spans)
        statuses = (self.parse_status, self.enable_status, self.error_message)
        key = message_key(kind, self.attempt, shown, statuses, self.watermark.value)

        def build() -> knowledge_pb2.WatchSpansResponse:
            return knowledge_pb2.WatchSpansResponse(
                type=kind,
                attempt=self.attempt,
                spans=[span.message for span in shown],
                parse_status=convert.parse_status(self.parse_status),
                enable_status=convert.enable_status(self.enable_status),
                error_message=self.error_message,
                sequence=self.watermark.value,
            )

        return self._encodings.encode(key, build)


class _Ending:
    """When the stream may end: at once for a deleted knowledge (its spans are gone); for a
    terminal one, once no span is open or the grace for the spans to close has passed."""

    # Beyond the API's own grace, a watcher waits one more moment to see it close them.
    WAIT_S = STOP_GRACE_S + 2.0

    def __init__(self) -> None:
        self._terminal_since: float | None = None

    def reached(self, stream: _Stream) -> bool:
        if stream.parse_status == ParseStatus.DELETING:
            return True
        if stream.parse_status not in TERMINAL:
            self._terminal_since = None
            return False
        now = time.monotonic()
        if self._terminal_since is None:
            self._terminal_since = now
        return not stream.open_spans() or now - self._terminal_since >= self.WAIT_S

    def wait_s(self, stream: _Stream) -> float | None:
        """How long to wait for the next item: until the grace runs out, or for ever."""
        if self._terminal_since is None or stream.parse_status not in TERMINAL:
            return None
        return max(0.0, self._terminal_since + self.WAIT_S - time.monotonic())
