"""The span tracker: one progress tree per processing attempt (spec: «Span Tracker»).

Every change is written to knowledge_processing_spans (the source of truth, whose
updated_at is the heartbeat housekeeping reads) with the next sequence number of its
knowledge, and then published with it, so watchers see it at once and can tell an old or
repeated change from a new one; a lost publication costs a watcher only latency (the API
re-reads the DB now and then).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from core.public_text import without_temp_paths
from core.statuses import OPEN_SPAN_STATUSES, SpanKind, SpanStatus, Stage
from storage.events.base import EventPublisher, ProgressEvent
from workers.net.retry_notices import RetryNotice
from workers.observability.metrics import metrics

ROOT = "knowledge_processing"
# The five stages of a round, in the order they run.
STAGES: tuple[str, ...] = (
    Stage.DOCREADER,
    Stage.CHUNKING,
    Stage.EMBEDDING,
    Stage.MULTIMODAL,
    Stage.POSTPROCESS,
)
# The spans whose durations sluice_stage_duration_seconds observes: the stages and the whole
# round (steps and retries are too many and too alike to tell apart).
_TIMED = frozenset({ROOT, *STAGES})
# The error code of a retry step: a try that failed and was tried again.
RETRIED = "RETRIED"
# A span's progress is written at most this often (each write is a transaction and an
# event; an embedding batch can take a few milliseconds); what is held back goes out with
# the next write of the span, at the latest when it closes.
PROGRESS_INTERVAL_S = 0.5


class SpanRow(Protocol):
    id: str
    knowledge_id: str
    attempt: int
    parent_id: str | None
    name: str
    kind: str
    stage: str
    status: str
    input: dict[str, Any] | None
    output: dict[str, Any] | None
    error_code: str | None
    error_message: str | None
    started_at: datetime | None
    ended_at: datetime | None
    duration_ms: int | None
    updated_at: datetime
    sequence: int


class SpanStore(Protocol):
    def upsert(self, knowledge_id: str, attempt: int, name: str, **fields: Any) -> Any: ...

    def upsert_many(
        self, knowledge_id: str, attempt: int, changes: Sequence[tuple[str, Mapping[str, Any]]]
    ) -> Sequence[Any]: ...


class SpanFinder(Protocol):
    def id_of(self, knowledge_id: str, attempt: int, name: str) -> str | None: ...


class TrackedRound(Protocol):
    """Where a round's spans go: its knowledge's tenant and id."""

    @property
    def tenant_id(self) -> str: ...
    @property
    def id(self) -> str: ...


class TrackerParts(Protocol):
    @property
    def spans(self) -> SpanStore: ...
    @property
    def publisher(self) -> EventPublisher: ...


def round_tracker(
    parts: TrackerParts, knowledge: TrackedRound, attempt: int, *, queue_try: int = 1
) -> SpanTracker:
    """The span tracker of round ``attempt`` of ``knowledge`` (``queue_try``: the task's
    try, recorded on the spans it writes)."""
    return SpanTracker(
        parts.spans,
        parts.publisher,
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        attempt=attempt,
        queue_try=queue_try,
    )


def stage_span_id(spans: SpanFinder, knowledge_id: str, attempt: int, stage: str) -> str | None:
    """The id of round ``attempt``'s span of ``stage`` (the parent of a task's step spans);
    None for a round without one. Looked up by name: a round of a thousand graph chunks has
    a thousand step spans, which every one of its tasks would read again."""
    return spans.id_of(knowledge_id, attempt, stage)


def utcnow() -> datetime:
    return datetime.now(UTC)


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:  # SQLite hands back naive UTC datetimes.
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def span_to_dict(row: SpanRow) -> dict[str, Any]:
    """The JSON form used both in events and in API responses (one conversion path)."""
    return {
        "id": row.id,
        "knowledge_id": row.knowledge_id,
        "attempt": row.attempt,
        "parent_id": row.parent_id or "",
        "name": row.name,
        "kind": row.kind,
        "stage": row.stage or "",
        "status": row.status,
        "input": dict(row.input or {}),
        "output": dict(row.output or {}),
        "error_code": row.error_code or "",
        "error_message": row.error_message or "",
        "started_at": _iso(row.started_at),
        "ended_at": _iso(row.ended_at),
        "duration_ms": row.duration_ms or 0,
        "updated_at": _iso(row.updated_at),
        "sequence": row.sequence or 0,
    }


def span_event(row: SpanRow) -> ProgressEvent:
    return ProgressEvent(row.knowledge_id, row.attempt, "span", span_to_dict(row))


def publish_spans(publisher: EventPublisher, rows: Iterable[SpanRow]) -> None:
    """Publish changes made outside a tracker (e.g. spans closed in bulk), in sequence order."""
    for row in sorted(rows, key=lambda r: r.sequence):
        publisher.publish(span_event(row))


class SpanTracker:
    """begin / progress / end / fail / skip for the five stages of one attempt, and
    begin_step for the steps inside a stage (a task of its own, such as a table summary)."""

    def __init__(
        self,
        store: SpanStore,
        publisher: EventPublisher,
        *,
        tenant_id: str,
        knowledge_id: str,
        attempt: int,
        queue_try: int = 1,
        clock: Callable[[], datetime] = utcnow,
        progress_interval_s: float = PROGRESS_INTERVAL_S,
        ticker: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._publisher = publisher
        self._tenant_id = tenant_id
        self._knowledge_id = knowledge_id
        self._attempt = attempt
        # The queue's try of this round (the round's spans are shared by all its tries).
        self._queue_try = queue_try
        self._clock = clock
        # Times the progress interval (the clock stamps the spans).
        self._ticker = ticker
        self._progress_interval_s = progress_interval_s
        self._written_at: dict[str, float] = {}
        # Progress outputs held back by the interval, per span.
        self._held: dict[str, dict[str, Any]] = {}
        self._started: dict[str, datetime] = {}
        self._status: dict[str, str] = {}
        self._ids: dict[str, str] = {}
        self._retries = 0
        self._root_id = ""

    @property
    def attempt(self) -> int:
        return self._attempt

    @property
    def knowledge_id(self) -> str:
        return self._knowledge_id

    def running_stage(self) -> str | None:
        return next((s for s in STAGES if self._status.get(s) == SpanStatus.RUNNING), None)

    def open(self, inputs: Mapping[str, Any]) -> None:
        """Start the root span and lay out every stage as pending, so watchers see the plan."""
        now = self._clock()
        self._started[ROOT] = now
        root = self._write(
            ROOT,
            kind=SpanKind.ROOT,
            stage=Stage.NONE,
            status=SpanStatus.RUNNING,
            input=dict(inputs),
            output={},
            started_at=now,
            ended_at=None,
            duration_ms=0,
            error_code="",
            error_message="",
        )
        self._root_id = root.id
        pending: dict[str, Any] = {
            "kind": SpanKind.STAGE,
            "status": SpanStatus.PENDING,
            "parent_id": self._root_id,
            "input": {},
            "output": {},
            "started_at": None,
            "ended_at": None,
            "duration_ms": 0,
            "error_code": "",
            "error_message": "",
        }
        self._write_many([(stage, {**pending, "stage": stage}) for stage in STAGES])

    def begin(self, stage: str, inputs: Mapping[str, Any]) -> None:
        now = self._clock()
        self._started[stage] = now
        self._write(
            stage,
            status=SpanStatus.RUNNING,
            input=dict(inputs),
            started_at=now,
            ended_at=None,
            error_code="",
            error_message="",
        )

    def begin_step(
        self, name: str, *, stage: str, parent_id: str | None, inputs: Mapping[str, Any]
    ) -> None:
        """Start step span ``name`` (e.g. "postprocess.datatable") of ``stage``, under the span
        ``parent_id`` (the stage's); ``end`` / ``fail`` close it like a stage."""
        now = self._clock()
        self._started[name] = now
        self._write(
            name,
            kind=SpanKind.STEP,
            stage=stage,
            parent_id=parent_id,
            status=SpanStatus.RUNNING,
            input=dict(inputs),
            output={},
            started_at=now,
            ended_at=None,
            duration_ms=0,
            error_code="",
            error_message="",
        )

    def progress(self, stage: str, outputs: Mapping[str, Any], *, now: bool = False) -> None:
        """A heartbeat with the outputs so far; unless ``now``, held back (and replaced by
        later ones) while the span was written less than ``progress_interval_s`` ago."""
        written = self._written_at.get(stage)
        recent = written is not None and self._ticker() - written < self._progress_interval_s
        if recent and not now:
            self._held[stage] = dict(outputs)
            return
        self._write(stage, output=dict(outputs))

    def end(self, stage: str, outputs: Mapping[str, Any]) -> None:
        self._close(stage, SpanStatus.DONE, output=dict(outputs))

    def skip(self, stage: str, reason: str) -> None:
        self._close(stage, SpanStatus.SKIPPED, output={"reason": reason})

    def fail(self, stage: str, code: str, message: str) -> None:
        self._close(stage, SpanStatus.FAILED, error_code=code, error_message=message)

    def cancel(self, name: str, code: str, message: str) -> None:
        """Close span ``name`` (a step) as cancelled: its work was taken over."""
        self._close(name, SpanStatus.CANCELLED, error_code=code, error_message=message)

    def adopt(self, rows: Iterable[SpanRow]) -> None:
        """Go on with the spans an earlier task of this round wrote (the round's images are
        done, its post-processing runs now): their ids, statuses and start times."""
        for row in rows:
            self._ids[row.name] = row.id
            self._status[row.name] = row.status
            if row.started_at is not None:
                started = row.started_at
                self._started[row.name] = (
                    started if started.tzinfo is not None else started.replace(tzinfo=UTC)
                )
            if row.name == ROOT:
                self._root_id = row.id

    def cancel_open(self, code: str, message: str) -> None:
        """Close every stage still pending or running as cancelled (cascade after a failure)."""
        for stage in STAGES:
            if self._status.get(stage, SpanStatus.PENDING) in OPEN_SPAN_STATUSES:
                self._close(stage, SpanStatus.CANCELLED, error_code=code, error_message=message)

    def record_retry(self, notice: RetryNotice) -> None:
        """A failed try of a call the running stage retries: a failed step under that stage
        (or the root between stages), named ``{stage}.retry.{queue try}.{n}``."""
        stage = self.running_stage() or Stage.NONE
        self._retries += 1
        now = self._clock()
        self._write(
            f"{stage or 'round'}.retry.{self._queue_try}.{self._retries}",
            kind=SpanKind.STEP,
            stage=stage,
            parent_id=self._ids.get(stage, self._root_id) if stage else self._root_id,
            status=SpanStatus.FAILED,
            input={
                "operation": notice.operation,
                "try": notice.failed_try,
                "max_tries": notice.max_tries,
                "queue_try": self._queue_try,
            },
            output={"retry_in_s": notice.delay_s},
            started_at=now,
            ended_at=now,
            duration_ms=0,
            error_code=RETRIED,
            error_message=notice.error,
        )

    def record_failed_try(self, stage: str, code: str, message: str, max_tries: int) -> None:
        """This queue try of the round failed and the queue will try again: a failed step
        ``retry.{queue try}`` under the root, which the next try's fresh stage spans leave
        in place, so the timeline keeps why each earlier try ended."""
        now = self._clock()
        self._write(
            f"retry.{self._queue_try}",
            kind=SpanKind.STEP,
            stage=stage,
            parent_id=self._root_id,
            status=SpanStatus.FAILED,
            input={"queue_try": self._queue_try, "max_tries": max_tries, "stage": stage},
            output={},
            started_at=self._started.get(ROOT, now),
            ended_at=now,
            duration_ms=0,
            error_code=code,
            error_message=message,
        )

    def close(self, status: str, *, code: str = "", message: str = "") -> None:
        self._close(ROOT, status, error_code=code, error_message=message)

    def _close(self, name: str, status: str, **fields: Any) -> None:
        now = self._clock()
        started = self._started.get(name)
        duration = int((now - started).total_seconds() * 1000) if started else 0
        self._write(name, status=status, ended_at=now, duration_ms=duration, **fields)
        # A stage skipped before it started counts too (at 0 s): how often each is skipped.
        if name in _TIMED and (started or status == SpanStatus.SKIPPED):
            metrics().stage_duration.labels(name, status).observe(duration / 1000)

    def _write(self, name: str, **fields: Any) -> Any:
        return self._write_many([(name, fields)])[0]

    def _write_many(self, changes: Sequence[tuple[str, dict[str, Any]]]) -> Sequence[Any]:
        """The changes in one transaction, then their events in order."""
        now = self._ticker()
        for name, fields in changes:
            held = self._held.pop(name, None)
            if held is not None and "output" not in fields:
                fields["output"] = held
            if fields.get("error_message"):
                fields["error_message"] = without_temp_paths(fields["error_message"])
            if "status" in fields:
                self._status[name] = fields["status"]
            fields["tenant_id"] = self._tenant_id
            self._written_at[name] = now
        rows = self._store.upsert_many(self._knowledge_id, self._attempt, changes)
        for (name, _), row in zip(changes, rows, strict=True):
            self._ids[name] = row.id
            self._publisher.publish(span_event(row))
        return rows


class StepSpans:
    """A task recorded as one step span of a round (``begin_step`` already called): its
    stages write nothing of their own; their outputs are gathered, and written when
    ``close`` ends the step."""

    def __init__(self, tracker: SpanTracker, step: str) -> None:
        self._tracker = tracker
        self._step = step
        self._outputs: dict[str, Any] = {}

    def begin(self, stage: str, inputs: Mapping[str, Any]) -> None:
        pass

    def progress(self, stage: str, outputs: Mapping[str, Any], *, now: bool = False) -> None:
        pass

    def end(self, stage: str, outputs: Mapping[str, Any]) -> None:
        self._outputs.update(outputs)

    def skip(self, stage: str, reason: str) -> None:
        pass

    def close(self) -> None:
        self._tracker.end(self._step, self._outputs)
