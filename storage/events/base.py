"""Progress events: every span or state change of a knowledge's processing, published as it
happens so ``WatchSpans`` can stream it. The database stays the source of truth; the bus
only saves watchers from polling, so publishing never fails the caller."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast, get_args

from core.errors import SluiceError

EventKind = Literal["span", "state", "resync"]
KINDS: frozenset[str] = frozenset(get_args(EventKind))


class EventBusError(SluiceError):
    """A subscription broke (e.g. the broker restarted): events may have been missed, so the
    watcher re-reads the database (and may subscribe again)."""

    component = "event bus"


@dataclass(frozen=True)
class ProgressEvent:
    """``kind`` "span" (one span changed) or "state" (the knowledge's status changed);
    "resync" is made by a bus, never published: events were dropped for this subscriber,
    so it must re-read the snapshot from the database."""

    knowledge_id: str
    attempt: int
    kind: EventKind
    data: dict[str, Any]

    def to_json(self) -> str:
        return json.dumps(
            {
                "knowledge_id": self.knowledge_id,
                "attempt": self.attempt,
                "kind": self.kind,
                "data": self.data,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> ProgressEvent:
        """Raises ValueError for anything that is not a well-formed event."""
        raw = json.loads(text)
        if not isinstance(raw, dict):
            raise ValueError("a progress event is a JSON object")
        knowledge_id, attempt = raw.get("knowledge_id"), raw.get("attempt")
        kind, data = raw.get("kind"), raw.get("data")
        if not isinstance(knowledge_id, str) or not knowledge_id:
            raise ValueError("knowledge_id must be a non-empty string")
        if not isinstance(attempt, int) or isinstance(attempt, bool):
            raise ValueError("attempt must be an integer")
        if kind not in KINDS:
            raise ValueError(f"unknown event kind {kind!r}")
        if not isinstance(data, dict):
            raise ValueError("data must be an object")
        return cls(knowledge_id, attempt, cast(EventKind, kind), data)


def job_changed_event(job_id: str) -> ProgressEvent:
    """What a long job's worker (an FAQ import, a clone, a move) publishes after it wrote
    the job's progress: its watchers (server.services.job_watch) read the job again."""
    return ProgressEvent(job_id, 0, "state", {})


def resync_event(knowledge_id: str, dropped: int) -> ProgressEvent:
    return ProgressEvent(knowledge_id, 0, "resync", {"dropped": dropped})


class EventPublisher(Protocol):
    def publish(self, event: ProgressEvent) -> None:
        """Send ``event`` to current subscribers; called from any thread or process. Never
        raises: a failure is logged and the event dropped."""
        ...


class EventSubscriber(Protocol):
    def subscribe(
        self, knowledge_id: str
    ) -> AbstractAsyncContextManager[AsyncIterator[ProgressEvent]]:
        """Events of ``knowledge_id``, in publish order. The subscription is live once the
        context is entered, so a watcher enters it BEFORE reading its database snapshot and
        misses nothing published afterwards. Iteration raises EventBusError when the
        subscription breaks."""
        ...
