"""How `sluice ingest` shows its progress: live Rich bars on a terminal (one overall, one
per document in flight: its stages done and the one under way), plain lines on a pipe or
in CI, nothing under `--json` (only the final summary)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from sluice_client._output import label
from sluice_client._proto.sluice import v1

Outcome = Literal["completed", "failed", "skipped"]


@dataclass(frozen=True)
class Result:
    relative: str
    outcome: Outcome
    knowledge_id: str = ""
    reason: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"path": self.relative, "knowledge_id": self.knowledge_id, "reason": self.reason}


# Stages that have ended and let the round go on.
_DONE = frozenset({v1.SpanStatus.DONE, v1.SpanStatus.SKIPPED})
# A stage span that counts its own work: (the output field of what is done, the input
# field of the whole). The other stages report no count to show.
_STAGE_COUNTS = {v1.Stage.EMBEDDING: ("chunks_embedded", "chunks")}


class DocumentProgress:
    """One document's round as its WatchSpans stream tells it: the round lays out all its
    stage spans when it opens (pending), so `completed` of `total` is the stages done out
    of the round's; `stage` names the one under way."""

    def __init__(self) -> None:
        self._attempt = 0
        self._stages: dict[str, v1.Span] = {}

    def update(self, event: v1.WatchSpansResponse) -> None:
        if event.attempt != self._attempt:  # a retry starts a new round, with new spans
            self._attempt, self._stages = event.attempt, {}
        for span in event.spans:
            if span.attempt == self._attempt and span.kind == v1.SpanKind.STAGE:
                self._stages[span.id or span.name] = span

    @property
    def total(self) -> int | None:
        """None until the round's spans arrive (the document is still queued)."""
        return len(self._stages) or None

    @property
    def completed(self) -> int:
        return sum(span.status in _DONE for span in self._stages.values())

    @property
    def stage(self) -> str:
        """`embedding 12/40` (the running stage, with its count if it reports one), else
        the first stage not done and its status; "queued" before the round opens."""
        stages = sorted(self._stages.values(), key=lambda span: span.stage.value)
        running = [span for span in stages if span.status == v1.SpanStatus.RUNNING]
        if running:
            return " ".join(filter(None, (running[0].name, _count(running[0]))))
        waiting = [span for span in stages if span.status not in _DONE]
        if waiting:
            return f"{waiting[0].name} {label(waiting[0].status)}"
        return "done" if stages else "queued"


def _count(span: v1.Span) -> str:
    fields = _STAGE_COUNTS.get(span.stage)
    if fields is None:
        return ""
    done = span.output.to_dict().get(fields[0]) if span.output is not None else None
    whole = span.input.to_dict().get(fields[1]) if span.input is not None else None
    if not isinstance(done, int | float) or not isinstance(whole, int | float):
        return ""
    return f"{int(done)}/{int(whole)}"


class Reporter:
    """Plain lines, one per event; the base of the live view, and silent when `quiet`."""

    def __init__(self, console: Console, *, quiet: bool = False) -> None:
        self.console = console
        self._quiet = quiet
        self._lock = threading.Lock()

    def __enter__(self) -> Reporter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None

    def planned(self, total: int) -> None:
        self._line(f"ingesting {total} files")

    def started(self, relative: str) -> None:
        return None

    def uploaded(self, relative: str, knowledge_id: str) -> None:
        self._line(f"uploaded {relative} as {knowledge_id}")

    def stage(self, relative: str, event: v1.WatchSpansResponse) -> None:
        return None

    def finished(self, result: Result) -> None:
        detail = f": {result.reason}" if result.reason else ""
        self._line(f"{result.outcome} {result.relative}{detail}")

    def _line(self, text: str) -> None:
        if not self._quiet:
            with self._lock:
                self.console.print(text, markup=False, highlight=False, soft_wrap=True)


class LiveReporter(Reporter):
    """Rich bars: the overall count, and a bar per document in flight of its stages done
    (`DocumentProgress`), with the stage under way as its text. File names and what the
    server reports are escaped: Rich would take `a[red]b.md` for markup."""

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[cyan]{task.fields[stage]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._overall = self._progress.add_task("all files", total=None, stage="")
        self._tasks: dict[str, tuple[TaskID, DocumentProgress]] = {}

    def __enter__(self) -> Reporter:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def planned(self, total: int) -> None:
        self._progress.update(self._overall, total=total)

    def started(self, relative: str) -> None:
        task = self._progress.add_task(escape(relative), total=None, stage="uploading")
        self._tasks[relative] = (task, DocumentProgress())

    def uploaded(self, relative: str, knowledge_id: str) -> None:
        self._progress.update(self._tasks[relative][0], stage="queued")

    def stage(self, relative: str, event: v1.WatchSpansResponse) -> None:
        task, document = self._tasks[relative]
        document.update(event)
        self._progress.update(
            task,
            total=document.total,
            completed=document.completed,
            stage=escape(document.stage),
        )

    def finished(self, result: Result) -> None:
        task = self._tasks.pop(result.relative, None)
        if task is not None:
            self._progress.remove_task(task[0])
        self._progress.advance(self._overall)
        style = {"completed": "green", "failed": "red", "skipped": "yellow"}[result.outcome]
        detail = f": {escape(result.reason)}" if result.reason else ""
        self._progress.console.print(
            f"[{style}]{result.outcome}[/] {escape(result.relative)}{detail}", highlight=False
        )


def summary_table(results: list[Result]) -> Table:
    table = Table(title="sluice ingest")
    for column in ("file", "outcome", "knowledge", "reason"):
        table.add_column(column, overflow="fold")
    for result in sorted(results, key=lambda r: r.relative):
        cells = (result.relative, result.outcome, result.knowledge_id, result.reason)
        table.add_row(*(escape(cell) for cell in cells))
    return table
