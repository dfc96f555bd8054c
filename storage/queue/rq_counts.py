"""Every RQ queue's counts (storage.queue.counts), read from its list and job registries."""

from __future__ import annotations

from redis import Redis
from rq import Queue

from storage.queue.base import QueueName
from storage.queue.counts import QueueCounts
from storage.queue.rq_queue import SERIALIZER, rq_queue_name


def rq_queue_counts(connection: Redis, key_prefix: str) -> dict[QueueName, QueueCounts]:
    """Every queue's counts. No registry cleanup: a scrape only reads."""
    counts = {}
    for name in QueueName:
        queue = Queue(rq_queue_name(key_prefix, name), connection=connection, serializer=SERIALIZER)
        counts[name] = QueueCounts(
            waiting=queue.count,
            started=queue.started_job_registry.get_job_count(cleanup=False),
            failed=queue.failed_job_registry.get_job_count(cleanup=False),
            scheduled=queue.scheduled_job_registry.get_job_count(cleanup=False),
        )
    return counts
