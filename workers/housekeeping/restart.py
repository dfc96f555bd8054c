"""Lite mode's recovery pass at startup, before the API accepts anything.

The in-process queue died with the previous process, so nothing it held can still be
queued or running: a round the previous process handed back on its way down (its spans
say INTERRUPTED_BY_SHUTDOWN) is queued again at the same attempt, as a full-mode worker's
hand-back would be; every other row left in flight is re-enqueued as a new attempt (within
the automatic requeue budget; a round that never started is free) or failed, every interrupted
deletion is failed so it can be deleted again, every open summary of a finished parse
is failed, and every maintenance job left pending or processing is queued again to resume
(within its budget; see maintenance.py). Only rows last updated before the pass began are
taken, so the rows it requeues (whose ``updated_at`` it bumps) are not taken twice.
"""

from __future__ import annotations

import logging
from collections import Counter

from core.statuses import IN_FLIGHT, ParseStatus
from storage.db.models import Knowledge
from storage.db.repositories.housekeeping import HousekeepingRepository
from workers import task_specs
from workers.housekeeping.deletions import fail_interrupted_deletions
from workers.housekeeping.maintenance import sweep_maintenance
from workers.housekeeping.outcomes import Outcome, plain_counts
from workers.housekeeping.parts import HousekeepingParts
from workers.housekeeping.recovery import StuckRound, recover_round
from workers.housekeeping.stall_site import locate
from workers.housekeeping.summaries import fail_open_summaries
from workers.housekeeping.wording import restart_message
from workers.lifecycle.enqueue import document_process_payload
from workers.pipeline.round.cleanup import INTERRUPTED
from workers.pipeline.round.spans import ROOT

log = logging.getLogger(__name__)


def recover_after_restart(ctx: HousekeepingParts) -> Counter[str]:
    repo = HousekeepingRepository(ctx.db)
    started = ctx.clock.now()
    report: Counter[str] = Counter()
    for row in repo.stale(IN_FLIGHT, started):
        try:
            if _handed_back(ctx, row):
                payload = document_process_payload(row, row.attempt)
                ctx.queue.enqueue(task_specs.document_process(ctx.settings, payload, at_front=True))
                report[Outcome.RESUMED] += 1
                continue
            report[recover_round(ctx, repo, _stuck(ctx, row))] += 1
        except Exception:
            log.exception("restart recovery of knowledge %s failed", row.id)
            report[Outcome.ERRORS] += 1
    report["deletions_failed"] += fail_interrupted_deletions(repo, started)
    report["summaries_failed"] += fail_open_summaries(repo, started)
    for outcome, count in sweep_maintenance(ctx, started).items():
        report[f"maintenance_{outcome}"] += count
    if any(report.values()):
        log.warning("restart recovery: %s", plain_counts(report))
    return report


def _handed_back(ctx: HousekeepingParts, row: Knowledge) -> bool:
    if row.parse_status != ParseStatus.PROCESSING:
        return False
    spans = ctx.spans.list(row.id, row.attempt, tenant_id=None)
    root = next((s for s in spans if s.name == ROOT), None)
    return root is not None and root.error_code == INTERRUPTED


def _stuck(ctx: HousekeepingParts, row: Knowledge) -> StuckRound:
    spans = ctx.spans.list(row.id, row.attempt, tenant_id=None)
    site = locate(spans)
    last = max((s.updated_at for s in spans), default=row.updated_at)
    return StuckRound(
        row=row,
        site=site,
        message=restart_message(row.parse_status, site, max(last, row.updated_at)),
        counted=bool(spans) or row.parse_status != ParseStatus.PENDING,
        active_since=None,
    )
