"""How `sluice ingest` shows its progress: live Rich bars on a terminal (one overall, one
per document in flight with its current stage), plain lines on a pipe or in CI, nothing
under `--json` (only the final summary)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

from rich.console import Console
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


def current_stage(event: v1.WatchSpansResponse) -> str | None:
    """The stage a document is in: the last running span of the event, else its last."""
    running = [s for s in event.spans if s.status == v1.SpanStatus.RUNNING]
    spans = running or event.spans
    return f"{spans[-1].name} {label(spans[-1].status)}" if spans else None


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
    """Rich bars: the overall count, and a pulsing bar per document in flight whose text
    is the stage its WatchSpans stream last reported."""

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
        self._tasks: dict[str, TaskID] = {}

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
        self._tasks[relative] = self._progress.add_task(relative, total=None, stage="uploading")

    def uploaded(self, relative: str, knowledge_id: str) -> None:
        self._progress.update(self._tasks[relative], stage="queued")

    def stage(self, relative: str, event: v1.WatchSpansResponse) -> None:
        stage = current_stage(event)
        if stage is not None:
            self._progress.update(self._tasks[relative], stage=stage)

    def finished(self, result: Result) -> None:
        task = self._tasks.pop(result.relative, None)
        if task is not None:
            self._progress.remove_task(task)
        self._progress.advance(self._overall)
        style = {"completed": "green", "failed": "red", "skipped": "yellow"}[result.outcome]
        detail = f": {result.reason}" if result.reason else ""
        self._progress.console.print(
            f"[{style}]{result.outcome}[/] {result.relative}{detail}", highlight=False
        )


def summary_table(results: list[Result]) -> Table:
    table = Table(title="sluice ingest")
    for column in ("file", "outcome", "knowledge", "reason"):
        table.add_column(column, overflow="fold")
    for result in sorted(results, key=lambda r: r.relative):
        table.add_row(result.relative, result.outcome, result.knowledge_id, result.reason)
    return table
