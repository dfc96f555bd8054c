"""The skeleton of a processing round, written once (after docling's BasePipeline): open the
round, run its stages in order — each recorded on its span, a checkpoint between two of them
— and finish; or end it the way its kind says when it is stopped, taken over, handed back or
fails. The document pipeline and the data-table task are both a list of stages given to a
runner of their kind (``DocumentRound``, ``DataTableRound``).

A stage is a name (its span), ``start`` (its span's inputs, or ``Skip`` with why it does not
run) and ``run`` (the work, its span's outputs); inside ``run`` it reports progress and asks
the round's checkpoint at its own stop points (between embedding batches, during a docreader
call). Adding a stage is one module plus its place in its pipeline's list.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from opentelemetry import trace

from storage.queue.base import TaskInterrupted
from workers.pipeline.round.checkpoint import ROUND_STATUSES, round_is_current
from workers.pipeline.round.cleanup import close_round_spans, stop_reason
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.parts import RoundSpanParts

log = logging.getLogger(__name__)
# Each stage is also an OpenTelemetry span, a child of the task's (a no-op with tracing off).
_tracer = trace.get_tracer("sluice.pipeline")

W = TypeVar("W")
W_contra = TypeVar("W_contra", contravariant=True)
# What a runner of one kind reaches of its process's parts: at least what the runner itself
# uses (the row its currency is judged by, the spans it closes when taken over).
P = TypeVar("P", bound=RoundSpanParts)


# A stage's outputs so far: a heartbeat on its span.
class Progress(Protocol):
    """A stage's outputs so far. Progress may be held back a moment (spans coalesce their
    heartbeats); ``now`` writes it at once, for outputs a task the stage queues next may
    read."""

    def __call__(self, outputs: Mapping[str, Any], /, *, now: bool = False) -> None: ...


@dataclass(frozen=True)
class Skip:
    """A stage that does not run for this work; its span is closed as skipped with why."""

    reason: str


@dataclass(frozen=True)
class HandOff:
    """A stage whose work goes on in tasks of its own (a document's images, its enrichment
    subtasks): its span stays running, the round's task ends there, and those tasks end
    the round."""

    reason: str


class Stage(Protocol[W_contra]):
    """One stage of a round over work ``W`` (what its stages read and write)."""

    @property
    def name(self) -> str: ...

    def start(self, work: W_contra) -> Mapping[str, Any] | Skip:
        """Its span's inputs, or why the stage does not run."""
        ...

    def run(self, work: W_contra, progress: Progress) -> Mapping[str, Any] | HandOff:
        """Do the stage's work; its span's outputs, or HandOff when tasks of its own go on
        with it (the stage writes its span's outputs itself before queueing them)."""
        ...


class StageSpans(Protocol):
    """Where a round's stages are recorded (SpanTracker: a span per stage)."""

    def begin(self, stage: str, inputs: Mapping[str, Any]) -> None: ...

    def progress(self, stage: str, outputs: Mapping[str, Any], *, now: bool = False) -> None: ...

    def end(self, stage: str, outputs: Mapping[str, Any]) -> None: ...

    def skip(self, stage: str, reason: str) -> None: ...


def run_stage(spans: StageSpans, stage: Stage[W], work: W) -> HandOff | None:
    """Run one stage, its span begun with its inputs and ended with its outputs (or skipped,
    or left running when the stage hands the round off)."""
    inputs = stage.start(work)
    if isinstance(inputs, Skip):
        spans.skip(stage.name, inputs.reason)
        return None
    spans.begin(stage.name, inputs)

    def progress(fields: Mapping[str, Any], /, *, now: bool = False) -> None:
        spans.progress(stage.name, fields, now=now)

    attributes = {"sluice.stage": stage.name}
    with _tracer.start_as_current_span(f"stage {stage.name}", attributes=attributes):
        outputs = stage.run(work, progress)
    if isinstance(outputs, HandOff):
        return outputs
    spans.end(stage.name, outputs)
    return None


class RoundRunner(ABC, Generic[W, P]):
    """One round of ``knowledge_id`` at ``attempt``: its stages over ``work``, while the
    knowledge is in one of ``statuses`` at that attempt (what "current" means for it);
    ``parts`` are what the runner and its kind's ends use."""

    def __init__(
        self,
        parts: P,
        knowledge_id: str,
        attempt: int,
        spans: StageSpans,
        stages: Sequence[Stage[W]],
        *,
        statuses: Collection[str] = ROUND_STATUSES,
    ) -> None:
        self.parts = parts
        self.knowledge_id = knowledge_id
        self.attempt = attempt
        self.spans = spans
        self.stages = stages
        self.statuses = statuses

    def execute(self, work: W) -> bool:
        """Run the round; True when it finished, False when it stopped without failing.
        A failure the queue should retry is raised, as is TaskInterrupted."""
        self.open(work)
        try:
            with self.observing():
                for position, stage in enumerate(self.stages):
                    if position:
                        self.between_stages(self.stages[position - 1], work)
                    handoff = run_stage(self.spans, stage, work)
                    if handoff is not None:
                        self.handed_off(handoff, work)
                        return True
            self.finish(work)
        except TaskInterrupted:
            self.interrupted()
            raise
        except Superseded as exc:
            self.stopped(exc, work)
            return False
        except Exception as exc:
            # A write that failed because the round was taken over meanwhile (its row
            # deleted under it, say) is a stop, not a failure to retry.
            if not self.is_current():
                log.info(
                    "knowledge %s attempt %s taken over: %s", self.knowledge_id, self.attempt, exc
                )
                self.taken_over(work)
                return False
            self.failed(exc, work)
            return False
        return True

    def is_current(self) -> bool:
        return round_is_current(self.parts, self.knowledge_id, self.attempt, self.statuses)

    def taken_over(self, work: W) -> None:
        """The round was taken over (reparsed, cancelled, deleted): no retry, no failure,
        and nothing it wrote left; its open spans say why it stopped (a knowledge that is
        gone took its spans with it)."""
        self.remove_written(work)
        reason = stop_reason(self.parts, self.knowledge_id, self.attempt)
        if reason is not None:
            close_round_spans(self.parts, self.knowledge_id, self.attempt, *reason)
        log.info("knowledge %s attempt %s stopped: %s", self.knowledge_id, self.attempt, reason)

    def stopped(self, exc: Superseded, work: W) -> None:
        """A checkpoint said stop."""
        self.taken_over(work)

    @contextmanager
    def observing(self) -> Iterator[None]:
        """What watches the stages while they run (a document round: its retried calls)."""
        yield

    def interrupted(self) -> None:
        """The worker shuts down (TaskInterrupted is raised on after this)."""

    def handed_off(self, handoff: HandOff, work: W) -> None:
        """A stage's own tasks go on with the round: this task's part is done."""
        log.info(
            "knowledge %s attempt %s handed off: %s",
            self.knowledge_id,
            self.attempt,
            handoff.reason,
        )

    @abstractmethod
    def open(self, work: W) -> None:
        """Lay out the round's spans before its first stage."""

    @abstractmethod
    def between_stages(self, done: Stage[W], work: W) -> None:
        """The checkpoint after stage ``done``: raise Superseded when the round must stop."""

    @abstractmethod
    def finish(self, work: W) -> None:
        """After the last stage: the round's result made final."""

    @abstractmethod
    def remove_written(self, work: W) -> None:
        """Remove what this round wrote (it was taken over)."""

    @abstractmethod
    def failed(self, exc: Exception, work: W) -> None:
        """A stage failed while the round is still current: retried (raise) or final."""
