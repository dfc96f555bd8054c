"""The wiki's safety net (spec: «Подстраховка очереди Wiki»).

Sweep W: a knowledge base with a pending ingest queued longer than the stale threshold ago,
whose document is still finalizing at that round, is held only because nothing consumes
its wiki queue (the task was lost, or no worker serves the queue): its ingest is queued
again, at most once per knowledge base per threshold (``wiki_kb_triggers``). Tombstones
older than the longest an ingest may hold a document go as well.

Sweep A asks ``wiki_hold`` first: a finalizing document whose ingest waits is protected for
``wiki_op_max_age_s`` (48 h); past that it is failed (not requeued: a new round would wait
for the same queue) and its wiki operations are removed."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from enum import StrEnum

from core.statuses import ParseStatus
from storage.db.models import Knowledge
from storage.db.repositories.housekeeping import HousekeepingRepository
from storage.db.repositories.wiki_ops import WikiOpRepository
from workers.housekeeping.outcomes import Outcome
from workers.housekeeping.parts import HousekeepingParts
from workers.wiki_request import request_wiki_ingest


class WikiHold(StrEnum):
    # The document's wiki ingest waits, within its 48 h.
    HELD = "held"
    # It has waited longer: the document fails.
    EXPIRED = "expired"


def sweep_wiki(ctx: HousekeepingParts, repo: HousekeepingRepository, now: datetime) -> Counter[str]:
    threshold = timedelta(seconds=ctx.settings.stale_threshold_s)
    ops = WikiOpRepository(ctx.db)
    report: Counter[str] = Counter()
    for kb_id in ops.waiting_bases(now - threshold):
        if not ops.mark_triggered(kb_id, now, not_since=now - threshold):
            report[Outcome.WIKI_THROTTLED] += 1
            continue
        queued = request_wiki_ingest(ctx.queue, kb_id, now=now.timestamp)
        report[Outcome.WIKI_RETRIGGERED if queued is not None else Outcome.ERRORS] += 1
    ops.purge_tombstones(now - timedelta(seconds=ctx.settings.housekeeping.wiki_op_max_age_s))
    return report


def wiki_hold(ctx: HousekeepingParts, row: Knowledge, now: datetime) -> WikiHold | None:
    """Whether a pending wiki ingest of the row's round protects it; None when none waits."""
    if row.parse_status != ParseStatus.FINALIZING:
        return None
    queued_at = WikiOpRepository(ctx.db).oldest_ingest(row.id, row.attempt)
    if queued_at is None:
        return None
    max_age = timedelta(seconds=ctx.settings.housekeeping.wiki_op_max_age_s)
    return WikiHold.HELD if queued_at >= now - max_age else WikiHold.EXPIRED


def drop_wiki_ops(ctx: HousekeepingParts, knowledge_id: str) -> None:
    """A document failed for its expired wiki ingest: its wiki operations go with it."""
    WikiOpRepository(ctx.db).drop_for_knowledges([knowledge_id])
