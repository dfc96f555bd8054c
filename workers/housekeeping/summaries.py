"""Sweep B: summaries that will never finish.

``processing`` for longer than the summary threshold → failed. ``pending`` while the parse
is already over (completed/failed/cancelled), for as long, with no task of the knowledge
waiting in the queue → failed too, so clients stop showing «generating summary» forever
after its task gave up early (when the probe fails the row waits for the next round).
A summary refresh (a completed knowledge's summary pending or processing again) is
recovered the same way: its task is in the knowledge's group, and the summary written last
stays; summary_error says what happened.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime, timedelta

from core.statuses import SummaryStatus
from storage.db.models import Knowledge
from storage.db.repositories.housekeeping import HousekeepingRepository
from storage.queue.base import QueueError
from workers.housekeeping.outcomes import Outcome
from workers.housekeeping.parts import HousekeepingParts
from workers.housekeeping.wording import iso_z

log = logging.getLogger(__name__)


def sweep_summaries(
    ctx: HousekeepingParts, repo: HousekeepingRepository, now: datetime
) -> Counter[str]:
    cutoff = now - timedelta(seconds=ctx.settings.housekeeping.summary_stale_after_s)
    report: Counter[str] = Counter()
    processing = SummaryStatus.PROCESSING.value
    for row in repo.stale_summaries(processing, cutoff, parse_done=False):
        failed = repo.fail_summary(row, processing, stuck_message(row, processing))
        report[Outcome.FAILED if failed else Outcome.MOVED] += 1
    pending = SummaryStatus.PENDING.value
    for row in repo.stale_summaries(pending, cutoff, parse_done=True):
        try:
            if ctx.queue.is_queued(row.id):
                report[Outcome.QUEUED] += 1
                continue
        except QueueError:
            log.warning("queue probe for knowledge %s failed; skipped this round", row.id)
            report[Outcome.SKIPPED] += 1
            continue
        failed = repo.fail_summary(row, pending, stuck_message(row, pending))
        report[Outcome.FAILED if failed else Outcome.MOVED] += 1
    return report


def stuck_message(row: Knowledge, status: str) -> str:
    return f"summary stuck {status} since {iso_z(row.updated_at)}, recovered by housekeeping"


def fail_open_summaries(repo: HousekeepingRepository, before: datetime) -> int:
    """At lite startup nothing can be writing a summary: every open one of a finished parse
    from before the restart is failed at once."""
    failed = 0
    for status in (SummaryStatus.PROCESSING.value, SummaryStatus.PENDING.value):
        for row in repo.stale_summaries(status, before, parse_done=True):
            failed += repo.fail_summary(row, status, "summary was open when the server restarted")
    return failed
