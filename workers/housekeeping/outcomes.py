"""How a row of the sweeps over knowledges (stuck rounds, summaries, deletions) ended in one
housekeeping round, or in lite mode's recovery pass at startup; the reports count them
(``--once`` prints the round's)."""

from __future__ import annotations

from collections import Counter
from enum import StrEnum


class Outcome(StrEnum):
    # A new attempt of the stuck round was queued (a maintenance job: queued again).
    REQUEUED = "requeued"
    # At startup: a round handed back on shutdown was queued again at its attempt.
    RESUMED = "resumed"
    # Marked failed with the reason.
    FAILED = "failed"
    # The row moved (or showed life) between the sweep's read and its write: left alone.
    MOVED = "moved"
    # Its spans heartbeat within the stale threshold (a maintenance job: its task is
    # waiting, or running with a fresh heartbeat).
    ALIVE = "alive"
    # A task of the knowledge waits in the queue.
    QUEUED = "queued"
    # The queue probe failed: the row waits for the next round.
    SKIPPED = "skipped"
    # A finalizing document whose wiki ingest waits (less than wiki_op_max_age_s).
    WIKI_HELD = "wiki_held"
    # The wiki sweep queued a knowledge base's ingest again, or left it (re-triggered
    # within the stale threshold already).
    WIKI_RETRIGGERED = "wiki_retriggered"
    WIKI_THROTTLED = "wiki_throttled"
    # Housekeeping of the row (or the whole sweep) raised; the next round tries again.
    ERRORS = "errors"


# Nothing was done for these: the round logs only sweeps that counted something else.
IDLE: frozenset[Outcome] = frozenset(
    {Outcome.ALIVE, Outcome.QUEUED, Outcome.WIKI_HELD, Outcome.WIKI_THROTTLED}
)


def plain_counts(counts: Counter[str]) -> dict[str, int]:
    """``counts`` with plain string keys, so a log line reads "failed", not
    "<Outcome.FAILED: 'failed'>"."""
    return {str(key): count for key, count in counts.items()}
