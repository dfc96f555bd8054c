"""Time as the code that judges TTLs and thresholds reads it.

Whatever decides "has this expired?" or "has this been quiet for too long?" in process takes
a Clock (the system clock by default, chosen at the composition root), so a test moves time
forward instead of sleeping through it. Deadlines the servers enforce themselves (Redis key
expiry, PostgreSQL timeouts) and waits for other threads or processes stay on real time.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The wall-clock time, timezone-aware UTC (what rows and grants record)."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back, for intervals within one process."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()


SYSTEM_CLOCK = SystemClock()


class ManualClock:
    """The system clock plus every ``advance`` so far (for tests): time a test skips counts at
    once, and what it stamps still sorts with what the system clock stamped in between."""

    def __init__(self) -> None:
        self._skipped = 0.0

    def now(self) -> datetime:
        return datetime.now(UTC) + timedelta(seconds=self._skipped)

    def monotonic(self) -> float:
        return time.monotonic() + self._skipped

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds}s)")
        self._skipped += seconds
