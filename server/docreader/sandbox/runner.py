"""Runs a ParseJob in a forked child and waits for it under a time limit and a stop check.

Children fork from a ``forkserver`` that has the parsers imported already, so a parse
starts in milliseconds, and the server's own threads are never forked. A child that dies
without answering (killed by the memory cap or the kernel, or crashed in a C library) is
reported as a ParseError saying so; the server itself is untouched.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.process import BaseProcess

from server.docreader import errors
from server.docreader.errors import DocReaderError, ParseCancelled, ParseError
from server.docreader.sandbox.child import ChildOutcome, ParseJob, run_child
from server.docreader.sandbox.disk_sink import SpooledDocument
from server.docreader.sandbox.process import ParseProcess
from workers.observability.metrics import metrics

POLL_S = 0.05
_KILL_JOIN_S = 5.0
# A child that answered exits by itself at once; this only bounds a slow exit.
_EXIT_JOIN_S = 1.0
_ERROR_KINDS: dict[str, type[DocReaderError]] = {
    cls.__name__: cls
    for cls in vars(errors).values()
    if isinstance(cls, type) and issubclass(cls, DocReaderError)
}

StopCheck = Callable[[], bool]


@dataclass(frozen=True)
class ParseResult:
    document: SpooledDocument
    # The type the file was read as: magic bytes win over the declared extension.
    detected_type: str


class SandboxRunner:
    def __init__(self, *, memory_cap_bytes: int, timeout_s: float) -> None:
        self.memory_cap_bytes = memory_cap_bytes
        self.timeout_s = timeout_s
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(["server.docreader.sandbox.child"])

    def run(self, job: ParseJob, should_stop: StopCheck) -> ParseResult:
        receiver, sender = self._context.Pipe(duplex=False)
        child = ParseProcess(
            target=run_child, args=(job, sender, self.memory_cap_bytes), daemon=True
        )
        child.start()
        sender.close()
        try:
            outcome = self._await(child, receiver, job, should_stop)
            child.join(_EXIT_JOIN_S)
        finally:
            _kill(child)
            receiver.close()
        if outcome.stopped_by:
            metrics().sandbox_kills.labels(outcome.stopped_by).inc()
        if outcome.error_kind:
            raise _ERROR_KINDS.get(outcome.error_kind, ParseError)(outcome.message)
        return ParseResult(SpooledDocument.load(job.out_dir), outcome.detected_type)

    def _await(
        self,
        child: BaseProcess,
        receiver: multiprocessing.connection.Connection,
        job: ParseJob,
        should_stop: StopCheck,
    ) -> ChildOutcome:
        deadline = time.monotonic() + self.timeout_s
        while True:
            if receiver.poll(POLL_S):
                try:
                    outcome: ChildOutcome = receiver.recv()
                except EOFError:
                    break
                return outcome
            if not child.is_alive() and not receiver.poll(0):
                break
            if should_stop():
                raise ParseCancelled("the caller cancelled the read")
            if time.monotonic() > deadline:
                metrics().sandbox_kills.labels("timeout").inc()  # run's finally kills it
                raise ParseError(
                    f"reading {job.display_name} took longer than {self.timeout_s:.0f} s "
                    "and was stopped"
                )
        child.join(_KILL_JOIN_S)
        if child.exitcode == -signal.SIGKILL:  # the kernel's answer to the memory cap
            metrics().sandbox_kills.labels("memory").inc()
        raise ParseError(_death_message(job, child.exitcode, self.memory_cap_bytes))


def _kill(child: BaseProcess) -> None:
    """Kill the child and everything it started (its process group), also when the child
    itself is already gone: what it started may outlive it in the group."""
    if child.pid is not None:
        # OSError: an empty group, or the child had not made its own group yet.
        with contextlib.suppress(OSError):
            os.killpg(child.pid, signal.SIGKILL)
        if child.is_alive():
            child.kill()
    child.join(_KILL_JOIN_S)
    child.close()


def _death_message(job: ParseJob, exitcode: int | None, memory_cap_bytes: int) -> str:
    name = job.display_name
    cap = f"{memory_cap_bytes >> 20} MiB"
    if exitcode is not None and exitcode < 0:
        sig = signal.Signals(-exitcode).name
        if -exitcode == signal.SIGKILL:
            return (
                f"the parser reading {name} was killed ({sig}): "
                f"it likely exceeded the {cap} memory cap"
            )
        return f"the parser crashed ({sig}) reading {name}: the file is malformed"
    return f"the parser reading {name} exited with code {exitcode} without a result"
