"""Retries inside one try, made visible: code that retries a call reports each failed try
here, and whoever runs the work (a processing round) decides where it shows — the round
writes a span per failed try, so a watcher sees why a stage takes longer.

The observer is a context variable: each task thread has its own, shared clients (one
embedder per process) need no reference to any round, and code run outside a round
reports to no one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryNotice:
    # What was tried, e.g. "POST http://host/v1/embeddings".
    operation: str
    # The 1-based number of the try that failed; try ``failed_try + 1`` follows.
    failed_try: int
    max_tries: int
    error: str
    delay_s: float


RetryObserver = Callable[[RetryNotice], None]

_observer: ContextVar[RetryObserver | None] = ContextVar("sluice_retry_observer", default=None)


@contextmanager
def observe_retries(observer: RetryObserver) -> Iterator[None]:
    """Send the retries reported in this context (this thread) to ``observer``."""
    token = _observer.set(observer)
    try:
        yield
    finally:
        _observer.reset(token)


def report_retry(notice: RetryNotice) -> None:
    """Tell the current observer, if any. Reporting never breaks the call being retried."""
    observer = _observer.get()
    if observer is None:
        return
    try:
        observer(notice)
    except Exception:
        log.exception("reporting retry %d of %s failed", notice.failed_try, notice.operation)
