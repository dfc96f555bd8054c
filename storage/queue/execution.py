"""Running a handler by dotted path, with the task context its code can query.

Both adapters run every attempt through :func:`run_handler`, so ``attempt_info()``,
``cancel_requested()`` and ``shutdown_requested()`` behave the same in an RQ worker and in a
lite executor thread.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from storage.queue.base import AttemptInfo, NotInTaskError
from storage.queue.trace_context import task_span

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _RunningTask:
    info: AttemptInfo
    cancel_check: Callable[[], bool]
    shutdown_check: Callable[[], bool]


_running: ContextVar[_RunningTask | None] = ContextVar("sluice_running_task", default=None)


def import_by_path(path: str) -> Callable[..., Any]:
    """The module-level callable named ``package.module.function``."""
    module_name, _, attribute = path.rpartition(".")
    target = getattr(importlib.import_module(module_name), attribute)
    if not callable(target):
        raise TypeError(f"{path} is not callable")
    return target  # type: ignore[no-any-return]


def run_handler(
    handler_path: str,
    payload: dict[str, Any],
    info: AttemptInfo,
    cancel_check: Callable[[], bool],
    shutdown_check: Callable[[], bool],
    trace_carrier: Mapping[str, str] | None = None,
) -> None:
    """Call the handler with its task context, in the span of the attempt (continuing
    ``trace_carrier``, the trace of whoever enqueued it)."""
    handler = import_by_path(handler_path)
    token = _running.set(_RunningTask(info, cancel_check, shutdown_check))
    try:
        with task_span(handler_path, trace_carrier, info):
            handler(payload)
    finally:
        _running.reset(token)


def _current() -> _RunningTask:
    running = _running.get()
    if running is None:
        raise NotInTaskError("not inside a running task handler")
    return running


def current_attempt() -> AttemptInfo:
    """The running handler's attempt; raises NotInTaskError outside a handler."""
    return _current().info


def cancel_requested() -> bool:
    """Whether the running handler's group was cancelled; raises NotInTaskError outside."""
    return _current().cancel_check()


def shutdown_requested() -> bool:
    """Whether the process running the handler is shutting down; raises NotInTaskError
    outside a handler."""
    return _current().shutdown_check()


def describe_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def call_final_failure(path: str, payload: dict[str, Any], error: str) -> None:
    """Call the dead-letter callback; its own failure is logged, never raised, because it
    runs inside the queue machinery where an exception would mask the task's failure."""
    try:
        import_by_path(path)(payload, error)
    except Exception:
        logger.exception("final-failure callback %s raised", path)
