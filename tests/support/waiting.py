"""The one polling helper: wait for a condition the code under test makes true on its own
(another thread, process or server), failing with what was awaited."""

from __future__ import annotations

import time
from collections.abc import Callable

# Polls about this many times over the timeout, 50-200 ms apart: short waits (a log line of
# a thread) are seen at once, long ones (a deployment's gRPC calls, index reads) are not
# asked so often that the polling itself loads the servers.
_POLLS = 200


def wait_until(
    check: Callable[[], bool], timeout: float = 10.0, what: str = "the condition"
) -> None:
    interval = min(0.2, max(0.05, timeout / _POLLS))
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out after {timeout}s waiting for {what}"
        time.sleep(interval)
