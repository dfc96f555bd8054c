"""The one polling helper: wait for a condition the code under test makes true on its own
(another thread, process or server), failing with what was awaited."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(
    check: Callable[[], bool], timeout: float = 10.0, what: str = "the condition",
    *, interval: float = 0.05,
) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out after {timeout}s waiting for {what}"
        time.sleep(interval)
