"""One housekeeping round: the sweeps, each isolated from the others' failures."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from storage.db.repositories.housekeeping import HousekeepingRepository
from workers.housekeeping.deletions import sweep_deletions
from workers.housekeeping.maintenance import sweep_maintenance
from workers.housekeeping.outcomes import IDLE, Outcome, plain_counts
from workers.housekeeping.parts import HousekeepingParts
from workers.housekeeping.resources import sweep_resources
from workers.housekeeping.stalled import sweep_stalled
from workers.housekeeping.summaries import sweep_summaries
from workers.housekeeping.wiki import sweep_wiki

log = logging.getLogger(__name__)

Sweep = Callable[[HousekeepingParts, HousekeepingRepository, datetime], Counter[str]]


@dataclass(frozen=True)
class RoundReport:
    """Per sweep, how many rows ended how (an ``Outcome`` each; the resource sweep counts
    what it purged and kept)."""

    stalled: Counter[str] = field(default_factory=Counter)
    summaries: Counter[str] = field(default_factory=Counter)
    deletions: Counter[str] = field(default_factory=Counter)
    resources: Counter[str] = field(default_factory=Counter)
    wiki: Counter[str] = field(default_factory=Counter)
    maintenance: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, dict[str, int]]:
        return {
            "stalled": plain_counts(self.stalled),
            "summaries": plain_counts(self.summaries),
            "deletions": plain_counts(self.deletions),
            "resources": plain_counts(self.resources),
            "wiki": plain_counts(self.wiki),
            "maintenance": plain_counts(self.maintenance),
        }


def run_round(ctx: HousekeepingParts, now: datetime | None = None) -> RoundReport:
    moment = now or ctx.clock.now()
    repo = HousekeepingRepository(ctx.db)
    report = RoundReport(
        stalled=_guarded("A (stuck documents)", sweep_stalled, ctx, repo, moment),
        summaries=_guarded("B (stuck summaries)", sweep_summaries, ctx, repo, moment),
        deletions=_guarded("C (stuck deletions)", sweep_deletions, ctx, repo, moment),
        resources=_guarded("D (resource catalog)", sweep_resources, ctx, repo, moment),
        wiki=_guarded("W (wiki queue)", sweep_wiki, ctx, repo, moment),
        maintenance=_guarded("M (maintenance jobs)", _maintenance, ctx, repo, moment),
    )
    acted = {
        name: counts
        for name, counts in report.as_dict().items()
        if any(k not in IDLE for k in counts)
    }
    if acted:
        log.info("housekeeping round: %s", acted)
    return report


def _maintenance(
    ctx: HousekeepingParts, repo: HousekeepingRepository, now: datetime
) -> Counter[str]:
    # A job written within a heartbeat TTL is being worked on (or was just queued).
    return sweep_maintenance(ctx, now - timedelta(seconds=ctx.settings.queue.task_heartbeat_ttl_s))


def _guarded(
    name: str, sweep: Sweep, ctx: HousekeepingParts, repo: HousekeepingRepository, now: datetime
) -> Counter[str]:
    try:
        return sweep(ctx, repo, now)
    except Exception:
        # The database may be down; the next round tries again.
        log.exception("housekeeping sweep %s failed", name)
        return Counter({Outcome.ERRORS: 1})
