"""Task handlers for the queue tests, imported by dotted path in RQ work horses and lite
executor threads alike. They leave evidence as JSON lines appended to the file named by
``payload["log"]`` (appends of one short line are atomic across processes)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from storage.queue.base import TaskInterrupted
from storage.queue.execution import cancel_requested, current_attempt, shutdown_requested


def _write(path: str, **fields: Any) -> None:
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps({**fields, "at": time.time()}) + "\n")


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _attempt_fields() -> dict[str, Any]:
    info = current_attempt()
    return {
        "job_id": info.job_id,
        "group": info.group,
        "attempt": info.attempt_number,
        "max_attempts": info.max_attempts,
        "is_last": info.is_last_attempt,
    }


def record(payload: dict[str, Any]) -> None:
    _write(payload["log"], event="ran", value=payload.get("value"), **_attempt_fields())


def fail_always(payload: dict[str, Any]) -> None:
    _write(payload["log"], event="attempt", **_attempt_fields())
    raise RuntimeError(f"boom {payload.get('value')}")


def fail_until(payload: dict[str, Any]) -> None:
    """Fails until attempt ``succeed_on``, then records success."""
    fields = _attempt_fields()
    if fields["attempt"] < payload["succeed_on"]:
        _write(payload["log"], event="attempt", **fields)
        raise RuntimeError("not yet")
    _write(payload["log"], event="ran", **fields)


def sleep_then_record(payload: dict[str, Any]) -> None:
    _write(payload["log"], event="started", **_attempt_fields())
    time.sleep(payload["sleep_s"])
    _write(payload["log"], event="done")


def wait_for_cancel(payload: dict[str, Any]) -> None:
    """Cooperative cancellation: polls cancel_requested() until it is set or time runs out."""
    _write(payload["log"], event="started", **_attempt_fields())
    deadline = time.monotonic() + payload["max_wait_s"]
    while time.monotonic() < deadline:
        if cancel_requested():
            _write(payload["log"], event="cancelled")
            return
        time.sleep(0.05)
    _write(payload["log"], event="deadline")


def fail_when_cancelled(payload: dict[str, Any]) -> None:
    """Sees the cancel and then fails (a clean-up that raises): the attempt must be the last."""
    _write(payload["log"], event="attempt", **_attempt_fields())
    deadline = time.monotonic() + payload["max_wait_s"]
    while time.monotonic() < deadline and not cancel_requested():
        time.sleep(0.05)
    raise RuntimeError("clean-up after the cancel failed")


def run_until_shutdown(payload: dict[str, Any]) -> None:
    """A long round with checkpoints: runs until the file ``payload["release"]`` exists
    (at most ``run_s`` seconds) unless the worker shuts down, in which case it stops at the
    next checkpoint, as the pipeline does."""
    _write(payload["log"], event="started", **_attempt_fields())
    deadline = time.monotonic() + payload["run_s"]
    while time.monotonic() < deadline and not Path(payload["release"]).exists():
        if shutdown_requested():
            _write(payload["log"], event="interrupted")
            raise TaskInterrupted("worker shutting down")
        time.sleep(0.05)
    _write(payload["log"], event="done")


def sleep_without_checkpoints(payload: dict[str, Any]) -> None:
    """A long call that never looks at the shutdown flag (a parse stuck in C code would be
    worse: that one only the hard exit ends)."""
    _write(payload["log"], event="started", **_attempt_fields())
    try:
        time.sleep(payload["sleep_s"])
    except TaskInterrupted:
        _write(payload["log"], event="interrupted")
        raise
    _write(payload["log"], event="done")


def exit_process(payload: dict[str, Any]) -> None:
    """A handler that tries to end the whole process; it must only fail its attempt."""
    _write(payload["log"], event="attempt", **_attempt_fields())
    raise SystemExit(3)


def kill_own_process(payload: dict[str, Any]) -> None:
    """Dies like an OOM-killed RQ work horse: no exception, no failure callback."""
    _write(payload["log"], event="attempt", **_attempt_fields())
    os.kill(os.getpid(), signal.SIGKILL)


def record_final_failure(payload: dict[str, Any], error: str) -> None:
    _write(payload["final_log"], event="final_failure", error=error, value=payload.get("value"))


def final_failure_that_raises(payload: dict[str, Any], error: str) -> None:
    _write(payload["final_log"], event="final_failure", error=error, value=payload.get("value"))
    raise RuntimeError("the dead-letter callback itself failed")


def record_worker_context(payload: dict[str, Any]) -> None:
    """What the process's composition root gave the task handlers."""
    from workers.context import current_context

    ctx = current_context()
    _write(
        payload["log"],
        event="context",
        mode=ctx.settings.mode,
        auth_required=ctx.settings.api.auth_required,
        key_prefix=ctx.settings.queue.key_prefix,
    )
