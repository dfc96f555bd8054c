"""How many tasks each queue holds right now, read from the queue's own bookkeeping (RQ's
queues and job registries in full mode, the in-process executor's lists in lite mode), so
any process that asks gets the same answer: the metrics collectors read it when scraped."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QueueCounts:
    waiting: int = 0  # ready to be taken
    started: int = 0  # taken by a worker, running
    failed: int = 0  # failed for good, kept in the failed registry (RQ only)
    scheduled: int = 0  # retries waiting for their delay
