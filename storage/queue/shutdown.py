"""The RQ worker process's shutdown state, shared by the worker (which sets it on SIGTERM)
and the job function (which hands it to the handler as ``shutdown_requested()``).

One per process: a worker process runs one worker. The ``in_task`` flag tells the shutdown
deadline whether there is a task to interrupt at all."""

from __future__ import annotations

import threading

_requested = threading.Event()
_in_task = threading.Event()


def request() -> None:
    _requested.set()


def is_requested() -> bool:
    return _requested.is_set()


def reset() -> None:
    """A fresh start (a worker process that begins work; tests of one process)."""
    _requested.clear()


def enter_task() -> None:
    _in_task.set()


def leave_task() -> None:
    _in_task.clear()


def in_task() -> bool:
    return _in_task.is_set()


def wait(timeout: float) -> bool:
    """Sleep up to ``timeout`` seconds, waking early on a shutdown request; whether one came."""
    return _requested.wait(timeout)
