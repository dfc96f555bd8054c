"""The housekeeping rounds counted and timed where the runner gets a round's report: the
sweeps stay free of metrics, and lite mode's rounds (in the API process) count too."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from workers.observability.metrics import metrics


class _Reported(Protocol):
    def as_dict(self) -> dict[str, dict[str, int]]: ...


Report = TypeVar("Report", bound=_Reported)


def metered_round(run: Callable[[], Report]) -> Report:
    """``run()`` (one round), timed, its result and every sweep's outcome counts counted."""
    found = metrics()
    started = time.perf_counter()
    try:
        report = run()
    except Exception:
        found.housekeeping_rounds.labels(result="raised").inc()
        raise
    finally:
        found.housekeeping_round_duration.observe(time.perf_counter() - started)
    found.housekeeping_rounds.labels(result="ran").inc()
    for sweep, counts in report.as_dict().items():
        for outcome, count in counts.items():
            found.housekeeping_rows.labels(sweep=sweep, outcome=outcome).inc(count)
    return report


def round_skipped() -> None:
    """A round not run here: another housekeeper holds the round lock."""
    metrics().housekeeping_rounds.labels(result="lock_held").inc()
