"""Where in its span tree a round got stuck: the span that is marked failed and named in
the message (spec: the running stage span; without one — e.g. finalizing, when the
postprocess stage is already closed — the innermost span still running)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from core.statuses import OPEN_SPAN_STATUSES, SpanStatus
from workers.pipeline.round.spans import ROOT, STAGES


class SpanLike(Protocol):
    id: str
    parent_id: str | None
    name: str
    kind: str
    stage: str
    status: str


@dataclass(frozen=True)
class StallSite:
    stage: str | None = None
    # The inner span named in parentheses ("postprocess.summary"), when not a stage itself.
    step: str | None = None
    # The span to mark failed; None when the round has no open span to blame.
    span_name: str | None = None


def locate(spans: Sequence[SpanLike]) -> StallSite:
    by_name = {s.name: s for s in spans}
    for stage in STAGES:
        span = by_name.get(stage)
        if span is not None and span.status == SpanStatus.RUNNING:
            return StallSite(stage, None, stage)
    running = [s for s in spans if s.status == SpanStatus.RUNNING and s.name != ROOT]
    if running:
        by_id = {s.id: s for s in spans}
        inner = max(running, key=lambda s: (_depth(s, by_id), s.name))
        stage = inner.stage or inner.name.split(".", 1)[0]
        return StallSite(stage, inner.name, inner.name)
    # Nothing running: it stopped between stages, before the first one still pending.
    for stage in STAGES:
        span = by_name.get(stage)
        if span is not None and span.status in OPEN_SPAN_STATUSES:
            return StallSite(stage, None, stage)
    return StallSite()


def _depth(span: SpanLike, by_id: dict[str, SpanLike]) -> int:
    depth = 0
    seen: set[str] = set()
    current: SpanLike | None = span
    while current is not None and current.parent_id and current.id not in seen:
        seen.add(current.id)
        current = by_id.get(current.parent_id)
        depth += 1
    return depth
