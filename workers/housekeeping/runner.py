"""Running rounds periodically: in a thread of the lite process, or in the foreground of
the `sluice-housekeeper` process of full mode (with a lock shared through Redis)."""

from __future__ import annotations

import logging
import threading

from workers.housekeeping.lock import RoundLock
from workers.housekeeping.parts import HousekeepingParts
from workers.housekeeping.rounds import RoundReport, run_round
from workers.observability.metrics_housekeeping import metered_round, round_skipped

log = logging.getLogger(__name__)


class Housekeeper:
    def __init__(self, ctx: HousekeepingParts, lock: RoundLock | None = None) -> None:
        self._ctx = ctx
        self._lock = lock

    def run_once(self) -> RoundReport | None:
        """One round; None when another process holds the round lock."""
        if self._lock is not None and not self._lock.acquire():
            round_skipped()
            return None
        try:
            return metered_round(lambda: run_round(self._ctx))
        finally:
            if self._lock is not None:
                self._lock.release()

    def run_forever(self, stop: threading.Event, *, first_delay_s: float = 0.0) -> None:
        interval = self._ctx.settings.housekeeping.housekeeping_interval_s
        if stop.wait(first_delay_s):
            return
        while True:
            try:
                self.run_once()
            except Exception:  # a round must never end the loop
                log.exception("housekeeping round failed")
            if stop.wait(interval):
                return


class BackgroundHousekeeper:
    """Rounds on a daemon thread (lite mode), the first one an interval after start."""

    def __init__(self, ctx: HousekeepingParts) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=Housekeeper(ctx).run_forever,
            args=(self._stop,),
            kwargs={"first_delay_s": ctx.settings.housekeeping.housekeeping_interval_s},
            name="sluice-housekeeping",
            daemon=True,
        )
        self._thread.start()

    def stop(self, timeout_s: float = 30.0) -> None:
        self._stop.set()
        self._thread.join(timeout_s)
