"""What a watcher knows of a knowledge's progress: span states (each decoded and converted
to its message once, however many watchers show it), reads of the database with their
sequence watermark, and the watermark itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sluice.v1 import knowledge_pb2

from core.statuses import ParseStatus
from server.api import convert
from server.services.progress import ProgressReads
from workers.pipeline.round.spans import span_to_dict


@dataclass(frozen=True)
class SpanState:
    """One span as of one change (``sequence``)."""

    name: str
    attempt: int
    sequence: int
    status: str
    message: knowledge_pb2.Span

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SpanState:
        """``data``: span_to_dict's form. Raises KeyError/ValueError/TypeError when malformed."""
        return cls(
            name=str(data["name"]),
            attempt=int(data["attempt"]),
            sequence=int(data.get("sequence") or 0),
            status=str(data["status"]),
            message=convert.span(data),
        )


@dataclass(frozen=True)
class DocState:
    """A read of the knowledge and of one attempt's spans. ``watermark`` is the knowledge's
    span_sequence read BEFORE the spans: every change numbered up to it is in ``spans``
    (a span write holds the knowledge's row until it commits)."""

    watermark: int
    attempt: int
    parse_status: str
    enable_status: str
    error_message: str
    spans: dict[str, SpanState] = field(default_factory=dict)

    @property
    def deleted(self) -> bool:
        return self.parse_status == ParseStatus.DELETING


class KnownSpans:
    """The latest state of each span of a knowledge's latest attempt that its feed has seen,
    so that a database read reuses the span states it already has instead of converting
    each row again (about 0.1 ms a span, in a thread that holds the GIL meanwhile)."""

    def __init__(self) -> None:
        self._attempt = 0
        self._spans: dict[str, SpanState] = {}

    def remember(self, span: SpanState) -> None:
        if span.attempt > self._attempt:
            self._attempt, self._spans = span.attempt, {}
        if span.attempt == self._attempt:
            shown = self._spans.get(span.name)
            if shown is None or span.sequence > shown.sequence:
                self._spans[span.name] = span

    def get(self, attempt: int, name: str, sequence: int) -> SpanState | None:
        """The span as of change ``sequence``, if known (a sequence names one change)."""
        if attempt != self._attempt or sequence <= 0:
            return None
        span = self._spans.get(name)
        return span if span is not None and span.sequence == sequence else None


def read_state(
    reads: ProgressReads, knowledge_id: str, attempt: int, known: KnownSpans | None = None
) -> DocState:
    """The knowledge with the spans of ``attempt`` (0 = its current one); a knowledge that is
    gone reads as "deleting", with no spans (see ProgressReads.attempt_spans)."""
    read = reads.attempt_spans(knowledge_id, attempt)
    if read is None:
        return DocState(0, attempt, ParseStatus.DELETING, "", "")
    row, chosen = read.knowledge, read.attempt
    spans = {}
    for span_row in read.spans:
        reused = known.get(chosen, span_row.name, span_row.sequence or 0) if known else None
        spans[span_row.name] = reused or SpanState.from_dict(span_to_dict(span_row))
    return DocState(
        watermark=row.span_sequence or 0,
        attempt=chosen,
        parse_status=row.parse_status,
        enable_status=row.enable_status,
        error_message=row.error_message or "",
        spans=spans,
    )


class Watermark:
    """The highest sequence N such that this watcher has been shown every change numbered
    up to N: what a client may resume from. Changes may arrive out of order (two workers
    writing spans of one knowledge) or be lost (pub/sub), so numbers seen above the
    watermark wait in a set until the gap below them is filled, by their events or by a
    database read."""

    def __init__(self, base: int) -> None:
        self.value = base
        self._above: set[int] = set()

    def raise_to(self, base: int) -> None:
        if base > self.value:
            self.value = base
            self._above = {n for n in self._above if n > base}
            self._advance()

    def seen(self, sequence: int) -> None:
        if sequence > self.value:
            self._above.add(sequence)
            self._advance()

    def _advance(self) -> None:
        while self.value + 1 in self._above:
            self.value += 1
            self._above.remove(self.value)
