"""Sweep C: deletions that stopped half-way (the process died between marking the row
``deleting`` and removing it). Past the stale threshold, with no task of the knowledge
waiting in the queue, the row becomes failed with the reason, shows up in lists again and
can be deleted again. When the probe fails the row waits for the next round; in lite mode
nothing outlives the process, so the probe only sees this process's own tasks.

A ``knowledge:list_delete`` batch is queued under a group of its own, which this probe
cannot see; a batch still waiting after the stale threshold therefore finds its rows
failed, and skips them (it deletes only rows still marked deleting): a spurious "delete it
again", never a lost or half-deleted row.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime, timedelta

from core.statuses import ParseStatus
from storage.db.repositories.housekeeping import HousekeepingRepository
from storage.queue.base import QueueError
from workers.housekeeping.outcomes import Outcome
from workers.housekeeping.parts import HousekeepingParts
from workers.housekeeping.wording import go_duration, iso_z

log = logging.getLogger(__name__)


def sweep_deletions(
    ctx: HousekeepingParts, repo: HousekeepingRepository, now: datetime
) -> Counter[str]:
    threshold = ctx.settings.stale_threshold_s
    cutoff = now - timedelta(seconds=threshold)
    report: Counter[str] = Counter()
    for row in repo.stale((ParseStatus.DELETING,), cutoff):
        try:
            if ctx.queue.is_queued(row.id):
                report[Outcome.QUEUED] += 1
                continue
        except QueueError:
            log.warning("queue probe for knowledge %s failed; skipped this round", row.id)
            report[Outcome.SKIPPED] += 1
            continue
        message = (
            f"deletion stuck: no progress since {iso_z(row.updated_at)} "
            f"(> {go_duration(threshold)}), recovered by housekeeping; delete it again"
        )
        report[Outcome.FAILED if repo.fail_deletion(row, message) else Outcome.MOVED] += 1
    return report


def fail_interrupted_deletions(repo: HousekeepingRepository, before: datetime) -> int:
    """At lite startup: a deletion from before the restart can no longer be running."""
    failed = 0
    for row in repo.stale((ParseStatus.DELETING,), before):
        failed += repo.fail_deletion(
            row,
            f"deletion interrupted by a restart (marked for deletion at "
            f"{iso_z(row.updated_at)}), recovered at startup; delete it again",
        )
    return failed
