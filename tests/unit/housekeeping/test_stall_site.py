"""Where a round got stuck, read from its spans."""

from __future__ import annotations

from dataclasses import dataclass

from workers.housekeeping.stall_site import StallSite, locate
from workers.pipeline.round.spans import STAGES


@dataclass
class FakeSpan:
    id: str
    name: str
    status: str
    kind: str = "stage"
    stage: str = ""
    parent_id: str | None = "root"


def _round(statuses: dict[str, str]) -> list[FakeSpan]:
    spans = [FakeSpan("root", "knowledge_processing", "running", "root", "", None)]
    spans += [FakeSpan(s, s, statuses.get(s, "pending"), stage=s) for s in STAGES]
    return spans


def test_the_running_stage_is_the_stall_site() -> None:
    spans = _round({"docreader": "done", "chunking": "done", "embedding": "running"})
    assert locate(spans) == StallSite("embedding", None, "embedding")


def test_without_a_running_stage_the_innermost_running_span_is_blamed() -> None:
    spans = _round(dict.fromkeys(STAGES, "done"))
    spans.append(
        FakeSpan("s1", "postprocess.summary", "running", "step", "postprocess", "postprocess")
    )
    spans.append(FakeSpan("s2", "postprocess.summary.llm", "running", "step", "postprocess", "s1"))
    assert locate(spans) == StallSite(
        "postprocess", "postprocess.summary.llm", "postprocess.summary.llm"
    )


def test_between_stages_the_next_pending_stage_is_blamed() -> None:
    spans = _round({"docreader": "done"})
    assert locate(spans) == StallSite("chunking", None, "chunking")


def test_no_spans_no_site() -> None:
    assert locate([]) == StallSite()
    assert locate(_round(dict.fromkeys(STAGES, "done"))) == StallSite()
