"""A try's time limit. Whether a long embedding will fit in it, said on the span before the
limit is hit: after each batch the embedding stage projects, from this try's own
throughput, when the rest would be done, and warns when that is past the limit (the next
try then goes on from the last checkpoint instead of starting over). And whether it is spent
when a stage fails: then the limit is why, whatever the interrupted call reported."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Too few batches measure startup more than throughput.
MIN_BATCHES_FOR_PROJECTION = 2
# A failure this close to the limit is taken for the limit's.
SPENT_MARGIN_S = 0.5


@dataclass
class TimeBudget:
    """``limit_s`` is the try's time limit (0: none known), counted from ``started_at``."""

    limit_s: int
    started_at: float
    clock: Callable[[], float] = time.monotonic
    _first_done: int | None = field(default=None, init=False)
    _first_at: float = field(default=0.0, init=False)
    _batches: int = field(default=0, init=False)

    def spent(self) -> bool:
        """Whether the try's time is up (within SPENT_MARGIN_S: the queue arms its alarm a
        moment before the attempt's clock is read)."""
        return self.limit_s > 0 and self.clock() - self.started_at >= self.limit_s - SPENT_MARGIN_S

    def report(self, done: int, total: int) -> dict[str, Any]:
        """Span fields after a batch: the limit, the time left, the projection, a warning."""
        now = self.clock()
        if self.limit_s <= 0:
            return {}
        left = self.limit_s - (now - self.started_at)
        fields: dict[str, Any] = {"time_limit_s": self.limit_s, "time_left_s": round(left)}
        if self._first_done is None:
            # Throughput is measured from the first batch on: what came before (parsing,
            # a resumed try's kept chunks) says nothing about embedding speed.
            self._first_done, self._first_at = done, now
            return fields
        self._batches += 1
        elapsed = now - self._first_at
        if self._batches < MIN_BATCHES_FOR_PROJECTION or elapsed <= 0:
            return fields
        rate = (done - self._first_done) / elapsed
        if rate <= 0:
            return fields
        needed = (total - done) / rate
        fields["chunks_per_s"] = round(rate, 2)
        fields["projected_s_to_finish"] = round(needed)
        if needed > left:
            fields["time_limit_warning"] = (
                f"at {rate:.1f} chunks/s the remaining {total - done} chunks need about "
                f"{round(needed)}s, but this try's time limit ends in {round(left)}s; "
                "a retry goes on from the last indexed batch"
            )
        return fields
