"""Sweep A: knowledges stuck in pending/processing/finalizing.

Three filters, as the spec orders them: rows not updated for the stale threshold; of
those, rows whose current attempt has no span heartbeat within the threshold (rows without
any span count as stuck); of those, rows with no task waiting in the queue (when the probe
fails the row is skipped this round). The rest are recovered (recovery.py). A finalizing
row whose wiki ingest waits is protected for 48 h, then failed (housekeeping.wiki).
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime, timedelta

from sqlalchemy.exc import SQLAlchemyError

from core.statuses import IN_FLIGHT, ParseStatus
from storage.db.models import Knowledge
from storage.db.repositories.housekeeping import HousekeepingRepository
from storage.queue.base import QueueError
from workers.housekeeping.outcomes import Outcome
from workers.housekeeping.parts import HousekeepingParts
from workers.housekeeping.recovery import StuckRound, recover_round
from workers.housekeeping.stall_site import locate
from workers.housekeeping.wiki import WikiHold, wiki_hold
from workers.housekeeping.wording import stall_message

log = logging.getLogger(__name__)


def sweep_stalled(
    ctx: HousekeepingParts, repo: HousekeepingRepository, now: datetime
) -> Counter[str]:
    threshold = ctx.settings.stale_threshold_s
    cutoff = now - timedelta(seconds=threshold)
    report: Counter[str] = Counter()
    for row in repo.stale(IN_FLIGHT, cutoff):
        try:
            verdict = _judge(ctx, row, now, threshold)
            if isinstance(verdict, Outcome):
                report[verdict] += 1
                continue
            report[recover_round(ctx, repo, verdict)] += 1
        except Exception:
            log.exception("housekeeping of knowledge %s failed; next round retries", row.id)
            report[Outcome.ERRORS] += 1
    return report


def _judge(
    ctx: HousekeepingParts, row: Knowledge, now: datetime, threshold: int
) -> StuckRound | Outcome:
    """The stuck round to recover, or why the row is left alone this round."""
    cutoff = now - timedelta(seconds=threshold)
    heartbeat: datetime | None = None
    heartbeat_read = True
    try:
        heartbeat = ctx.spans.last_activity(row.id, row.attempt)
    except SQLAlchemyError:
        log.warning("heartbeat of knowledge %s unreadable", row.id, exc_info=True)
        heartbeat_read = False
    if heartbeat is not None and heartbeat >= cutoff:
        return Outcome.ALIVE
    hold = wiki_hold(ctx, row, now)
    if hold is WikiHold.HELD:
        return Outcome.WIKI_HELD
    try:
        if ctx.queue.is_queued(row.id):
            return Outcome.QUEUED
    except QueueError:
        log.warning("queue probe for knowledge %s failed; skipped this round", row.id)
        return Outcome.SKIPPED
    spans = ctx.spans.list(row.id, row.attempt, tenant_id=None)
    site = locate(spans)
    last = max(heartbeat, row.updated_at) if heartbeat is not None else row.updated_at
    message = stall_message(row.parse_status, site, last if heartbeat_read else None, threshold)
    if hold is WikiHold.EXPIRED:
        message = f"{message}; its wiki operation waited more than the wiki's time limit"
    return StuckRound(
        row=row,
        site=site,
        message=message,
        counted=bool(spans) or row.parse_status != ParseStatus.PENDING,
        active_since=cutoff,
        wiki_expired=hold is WikiHold.EXPIRED,
    )
