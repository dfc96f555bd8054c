"""`sluice ingest KB_ID DIR`: upload a folder, `--concurrency` documents at a time, each
followed to the end of its processing; a table (or `--json`) of what completed, failed and
was skipped; exit 1 if any document failed."""

from __future__ import annotations

import contextlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated

import typer

from sluice_client import _exit_codes
from sluice_client._app import (
    DEFAULT_WATCH_SECONDS,
    JsonFlag,
    Output,
    WatchTimeout,
    app,
    connect,
    settings,
)
from sluice_client._console import CliConsole
from sluice_client._ingest_files import Candidate, IngestState, md5_of, unsupported_reason, walk
from sluice_client._ingest_progress import LiveReporter, Reporter, Result, summary_table
from sluice_client._output import UNSUCCESSFUL, label
from sluice_client._proto.sluice import v1
from sluice_client.client import SluiceClient
from sluice_client.errors import AlreadyExists, SluiceRpcError

PANEL = "Documents"
# How long a Ctrl-C waits for the uploads under way to name their knowledge (to cancel it).
UPLOAD_GRACE_SECONDS = 5.0


class _Ingest:
    """One file's way: resume check, upload, dedup answer, then its processing."""

    def __init__(
        self,
        client: SluiceClient,
        kb_id: str,
        state: IngestState,
        reporter: Reporter,
        timeout: float,
    ) -> None:
        self._client = client
        self._kb_id = kb_id
        self._state = state
        self._reporter = reporter
        self._timeout = timeout
        # Knowledges this run uploaded whose processing it is still following: what a
        # Ctrl-C cancels, so the server does not keep working for a run that is gone.
        # Uploads under way are counted: their knowledge exists before its id arrives.
        self._in_flight: set[str] = set()
        self._uploading = 0
        self.interrupted = False
        self._changed = threading.Condition()

    def cancel_in_flight(self, grace: float = UPLOAD_GRACE_SECONDS) -> None:
        """Cancels every knowledge in flight, waiting up to `grace` seconds for the
        uploads under way to answer with theirs."""
        with self._changed:
            self.interrupted = True
            self._changed.wait_for(lambda: self._uploading == 0, timeout=grace)
            in_flight = sorted(self._in_flight)
        for knowledge_id in in_flight:
            # Finished meanwhile (FAILED_PRECONDITION) or gone: nothing left to stop.
            with contextlib.suppress(SluiceRpcError):
                self._client.cancel_parse(knowledge_id)

    def _upload(self, candidate: Candidate, md5: str) -> v1.Knowledge | str:
        """The knowledge to follow, or the id of the duplicate that already holds the file."""
        try:
            return self._client.upload_file(
                self._kb_id, candidate.path, metadata={"path": candidate.relative}, md5=md5
            )
        except AlreadyExists as error:
            existing = error.existing_knowledge_id or ""
            if not existing or not self._cancelled(existing):
                return existing
        # An earlier run's Ctrl-C cancelled it, and a cancelled row still counts as a
        # duplicate on the server: process it again instead of skipping it.
        return self._client.reparse(existing)

    def _cancelled(self, knowledge_id: str) -> bool:
        knowledge = self._client.get_knowledge(knowledge_id)
        return knowledge.parse_status == v1.ParseStatus.CANCELLED

    def __call__(self, candidate: Candidate) -> Result:
        try:
            md5 = md5_of(candidate.path)
        except OSError as error:  # unreadable or gone since the walk: this file fails alone
            return Result(candidate.relative, "failed", reason=error.strerror or str(error))
        earlier = self._state.ingested(candidate, md5)
        if earlier is not None:
            return Result(candidate.relative, "skipped", earlier, "already ingested")
        with self._changed:
            if self.interrupted:
                return Result(candidate.relative, "skipped", reason="interrupted")
            self._uploading += 1
        self._reporter.started(candidate.relative)
        knowledge: v1.Knowledge | str = ""
        try:
            knowledge = self._upload(candidate, md5)
        except SluiceRpcError as error:
            return Result(
                candidate.relative, "failed", reason=f"{error.code.name}: {error.message}"
            )
        finally:
            with self._changed:
                self._uploading -= 1
                if isinstance(knowledge, v1.Knowledge):
                    self._in_flight.add(knowledge.id)
                self._changed.notify_all()
        if isinstance(knowledge, str):
            self._state.record(candidate, md5, knowledge)
            return Result(candidate.relative, "skipped", knowledge, "duplicate")
        try:
            if self.interrupted:  # the Ctrl-C's cancel covers it: nothing to follow
                return Result(candidate.relative, "failed", knowledge.id, "interrupted")
            self._reporter.uploaded(candidate.relative, knowledge.id)
            return self._follow(candidate, md5, knowledge.id)
        finally:
            with self._changed:
                if not self.interrupted:  # else it stays for the Ctrl-C's cancel to take
                    self._in_flight.discard(knowledge.id)

    def _follow(self, candidate: Candidate, md5: str, knowledge_id: str) -> Result:
        def on_event(event: v1.WatchSpansResponse) -> None:
            self._reporter.stage(candidate.relative, event)

        try:
            done = self._client.wait_until_done(knowledge_id, self._timeout, on_event=on_event)
        except (SluiceRpcError, TimeoutError) as error:
            return Result(candidate.relative, "failed", knowledge_id, str(error))
        if done.parse_status in UNSUCCESSFUL:
            reason = done.error_message or label(done.parse_status)
            return Result(candidate.relative, "failed", done.id, reason)
        self._state.record(candidate, md5, done.id)
        return Result(candidate.relative, "completed", done.id)


def _run(
    work: _Ingest,
    candidates: list[Candidate],
    concurrency: int,
    reporter: Reporter,
    client: SluiceClient,
) -> list[Result]:
    results: list[Result] = []
    lock = threading.Lock()

    def one(candidate: Candidate) -> None:
        result = work(candidate)
        with lock:
            results.append(result)
        if not work.interrupted:  # after a Ctrl-C only its one line is printed
            reporter.finished(result)

    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="ingest")
    try:
        for future in [pool.submit(one, candidate) for candidate in candidates]:
            future.result()
    except BaseException as error:
        # Ctrl-C (or a local error): drop what has not started and close the channel, so
        # the uploads and watches in flight end now instead of at their timeout; on Ctrl-C
        # the documents this run uploaded and was following are cancelled first.
        pool.shutdown(wait=False, cancel_futures=True)
        if isinstance(error, KeyboardInterrupt):
            work.cancel_in_flight()
        client.close()
        raise
    pool.shutdown()
    return results


@app.command("ingest", rich_help_panel=PANEL)
def _ingest(
    ctx: typer.Context,
    kb_id: Annotated[str, typer.Argument(metavar="KB_ID")],
    folder: Annotated[
        Path, typer.Argument(metavar="DIR", exists=True, file_okay=False, dir_okay=True)
    ],
    include: Annotated[
        list[str] | None,
        typer.Option(metavar="GLOB", help="only files matching this glob (repeat)"),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(metavar="GLOB", help="leave out files matching this glob (repeat)"),
    ] = None,
    concurrency: Annotated[
        int, typer.Option(min=1, max=64, help="documents in flight at once")
    ] = 4,
    timeout: WatchTimeout = DEFAULT_WATCH_SECONDS,
    as_json: JsonFlag = False,
) -> None:
    """Upload a folder (recursively) and follow each document to the end.

    Unsupported types, duplicates and files an earlier run ingested are skipped; exit 1
    if any document failed.
    """
    out = Output(ctx, as_json)
    console = CliConsole(stderr=out.json)
    results: list[Result] = []
    candidates: list[Candidate] = []
    for candidate in walk(folder, include or [], exclude or []):
        reason = unsupported_reason(candidate.path)
        if reason is None:
            candidates.append(candidate)
        else:
            results.append(Result(candidate.relative, "skipped", reason=reason))
    state = IngestState(settings(ctx).target, kb_id, folder)
    live = console.is_terminal and not out.json
    reporter = LiveReporter(console) if live else Reporter(console, quiet=out.json)
    with connect(ctx) as client:
        client.get_knowledge_base(kb_id)  # a wrong id or an unreachable server: stop here
        with reporter:
            reporter.planned(len(results) + len(candidates))
            for skipped in results:
                reporter.finished(skipped)
            work = _Ingest(client, kb_id, state, reporter, timeout)
            results += _run(work, candidates, concurrency, reporter, client)
    _summarise(results, out, console)
    if any(result.outcome == "failed" for result in results):
        raise typer.Exit(_exit_codes.FAILED)


def _summarise(results: list[Result], out: Output, console: CliConsole) -> None:
    by_outcome: dict[str, list[dict[str, str]]] = {"completed": [], "failed": [], "skipped": []}
    for result in sorted(results, key=lambda r: r.relative):
        by_outcome[result.outcome].append(result.to_dict())
    if out.json:
        print(json.dumps(by_outcome, ensure_ascii=False), flush=True)
        return
    console.print(summary_table(results))
    counts = ", ".join(f"{len(items)} {outcome}" for outcome, items in by_outcome.items())
    console.print(counts, highlight=False)
