"""The round skeleton on fakes: stages run in order on their spans (inputs, progress,
outputs, or skipped with why), a checkpoint between two of them, finish after the last; a
checkpoint's stop ends the round through ``stopped``, a stage's error through ``failed``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import pytest

from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.parts import RoundSpanParts
from workers.pipeline.round.runner import (
    HandOff,
    Progress,
    RoundRunner,
    Skip,
    Stage,
    run_stage,
)


class Spans:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, Any]] = []

    def begin(self, stage: str, inputs: Mapping[str, Any]) -> None:
        self.events.append(("begin", stage, dict(inputs)))

    def progress(self, stage: str, outputs: Mapping[str, Any], *, now: bool = False) -> None:
        self.events.append(("progress", stage, dict(outputs)))

    def end(self, stage: str, outputs: Mapping[str, Any]) -> None:
        self.events.append(("end", stage, dict(outputs)))

    def skip(self, stage: str, reason: str) -> None:
        self.events.append(("skip", stage, reason))


class Counting:
    """Adds its step to the work's list; fails with ``error`` when given one."""

    def __init__(self, name: str, error: Exception | None = None) -> None:
        self.name = name
        self._error = error

    def start(self, work: list[str]) -> Mapping[str, Any] | Skip:
        return {"before": len(work)}

    def run(self, work: list[str], progress: Progress) -> Mapping[str, Any]:
        progress({"half": True})
        if self._error is not None:
            raise self._error
        work.append(self.name)
        return {"after": len(work)}


class Skipped:
    name = "skipped"

    def start(self, work: list[str]) -> Mapping[str, Any] | Skip:
        return Skip("nothing to do")

    def run(self, work: list[str], progress: Progress) -> Mapping[str, Any]:
        raise AssertionError("a skipped stage does not run")


class Recording(RoundRunner[list[str], RoundSpanParts]):
    def __init__(self, stages: list[Stage[list[str]]], stop_after: str = "") -> None:
        self.calls: list[str] = []
        self.spans_seen = Spans()
        # The parts are only asked when a stage fails: is_current is answered here.
        super().__init__(cast(RoundSpanParts, None), "k", 1, self.spans_seen, stages)
        self._stop_after = stop_after

    def open(self, work: list[str]) -> None:
        self.calls.append("open")

    def between_stages(self, done: Stage[list[str]], work: list[str]) -> None:
        self.calls.append(f"after {done.name}")
        if done.name == self._stop_after:
            raise Superseded("k")

    def finish(self, work: list[str]) -> None:
        self.calls.append("finish")

    def is_current(self) -> bool:
        return True

    def stopped(self, exc: Superseded, work: list[str]) -> None:
        self.calls.append("stopped")

    def remove_written(self, work: list[str]) -> None:
        self.calls.append("remove")

    def failed(self, exc: Exception, work: list[str]) -> None:
        self.calls.append(f"failed {exc}")


def test_a_stage_runs_on_its_span_or_is_skipped_with_why() -> None:
    spans, work = Spans(), ["x"]
    run_stage(spans, Counting("one"), work)
    run_stage(spans, Skipped(), work)
    assert spans.events == [
        ("begin", "one", {"before": 1}),
        ("progress", "one", {"half": True}),
        ("end", "one", {"after": 2}),
        ("skip", "skipped", "nothing to do"),
    ]


def test_the_round_runs_its_stages_in_order_with_a_checkpoint_between_two() -> None:
    runner = Recording([Counting("one"), Skipped(), Counting("two")])
    work: list[str] = []
    assert runner.execute(work) is True
    assert work == ["one", "two"]
    assert runner.calls == ["open", "after one", "after skipped", "finish"]


def test_a_checkpoint_that_says_stop_ends_the_round_without_the_later_stages() -> None:
    runner = Recording([Counting("one"), Counting("two")], stop_after="one")
    work: list[str] = []
    assert runner.execute(work) is False
    assert work == ["one"]
    assert runner.calls == ["open", "after one", "stopped"]


@pytest.mark.parametrize("error", [ValueError("bad"), RuntimeError("worse")])
def test_a_failing_stage_ends_the_round_through_failed(error: Exception) -> None:
    runner = Recording([Counting("one", error=error), Counting("two")])
    assert runner.execute([]) is False
    assert runner.calls == ["open", f"failed {error}"]
    assert ("end", "one", {"after": 1}) not in runner.spans_seen.events


class HandingOff:
    """Goes on in tasks of its own: writes its outputs so far, then hands the round off."""

    name = "fan-out"

    def start(self, work: list[str]) -> Mapping[str, Any] | Skip:
        return {"items": 3}

    def run(self, work: list[str], progress: Progress) -> Mapping[str, Any] | HandOff:
        progress({"queued": 3})
        work.append(self.name)
        return HandOff("3 tasks queued")


def test_a_stage_that_hands_off_leaves_its_span_running_and_ends_the_task_there() -> None:
    runner = HandedOffRecording([Counting("one"), HandingOff(), Counting("two")])
    work: list[str] = []
    assert runner.execute(work) is True
    assert work == ["one", "fan-out"]
    assert runner.calls == ["open", "after one", "handed off: 3 tasks queued"]
    fan_out = [event for event in runner.spans_seen.events if event[1] == "fan-out"]
    assert fan_out == [("begin", "fan-out", {"items": 3}), ("progress", "fan-out", {"queued": 3})]


class HandedOffRecording(Recording):
    def handed_off(self, handoff: HandOff, work: list[str]) -> None:
        self.calls.append(f"handed off: {handoff.reason}")
