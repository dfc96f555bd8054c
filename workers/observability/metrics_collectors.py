"""Gauges of state, read when scraped rather than kept up to date by the code that changes
the state: the task queues (from the queue's own bookkeeping: the same answer whichever
process is scraped) and the documents by parse status (one GROUP BY on an indexed column).

A source that cannot be read (Redis or the database away) costs only its own gauges: its
``..._source_up`` gauge says 0 and the rest of the scrape goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from redis import Redis
from sqlalchemy import func, select

from core.statuses import ParseStatus
from storage.db.engine import Database
from storage.db.models.knowledge import Knowledge
from storage.queue.base import QueueName
from storage.queue.counts import QueueCounts
from storage.queue.rq_counts import rq_queue_counts

log = logging.getLogger(__name__)

QUEUES_UP = "sluice_queue_source_up"
DOCUMENTS_UP = "sluice_documents_source_up"
QueueReader = Callable[[], Mapping[QueueName, QueueCounts]]
# The gauges of a queue, by QueueCounts field.
QUEUE_GAUGES = {
    "waiting": ("sluice_queue_depth", "Tasks waiting in the queue to be taken"),
    "started": ("sluice_queue_started", "Tasks of the queue running now (in flight)"),
    "failed": ("sluice_queue_failed", "Tasks of the queue that failed for good, still kept"),
    "scheduled": ("sluice_queue_retries_scheduled", "Retries waiting for their delay"),
}


def _up(name: str, up: bool | None) -> GaugeMetricFamily:
    """Whether the source could be read at this scrape (None: the family only)."""
    gauge = GaugeMetricFamily(name, "1 when this scrape could read the source, else 0")
    if up is not None:
        gauge.add_metric([], 1.0 if up else 0.0)
    return gauge


def rq_queue_reader(redis_url: str, key_prefix: str) -> QueueReader:
    """The counts of a deployment's RQ queues, on a connection of their own (opened at the
    first scrape)."""
    connection = Redis.from_url(redis_url)
    return lambda: rq_queue_counts(connection, key_prefix)


class QueueCollector(Collector):
    """The four gauges of every queue, from ``read`` (RQ's registries or the lite queue)."""

    def __init__(self, read: QueueReader) -> None:
        self._read = read

    def describe(self) -> Iterator[Metric]:
        # Spares registering a read of the queues (the registry checks names with this).
        for name, help_text in QUEUE_GAUGES.values():
            yield GaugeMetricFamily(name, help_text, labels=["queue"])
        yield _up(QUEUES_UP, None)

    def collect(self) -> Iterator[Metric]:
        try:
            counts = self._read()
        except Exception as exc:  # Redis away: the scrape goes on without these
            log.warning("queue metrics unreadable: %s", exc)
            yield _up(QUEUES_UP, False)
            return
        for field, (name, help_text) in QUEUE_GAUGES.items():
            gauge = GaugeMetricFamily(name, help_text, labels=["queue"])
            for queue, count in counts.items():
                gauge.add_metric([queue.value], float(getattr(count, field)))
            yield gauge
        yield _up(QUEUES_UP, True)


class DocumentStatusCollector(Collector):
    """``sluice_documents{status}``: knowledges by parse status, every status present."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def describe(self) -> Iterator[Metric]:
        yield _documents(None)
        yield _up(DOCUMENTS_UP, None)

    def collect(self) -> Iterator[Metric]:
        query = select(Knowledge.parse_status, func.count()).group_by(Knowledge.parse_status)
        try:
            with self._db.session() as session:
                found = {status: count for status, count in session.execute(query).tuples()}
        except Exception as exc:  # the database away: the scrape goes on without these
            log.warning("document metrics unreadable: %s", exc)
            yield _up(DOCUMENTS_UP, False)
            return
        yield _documents(found)
        yield _up(DOCUMENTS_UP, True)


def _documents(found: Mapping[str, int] | None) -> GaugeMetricFamily:
    gauge = GaugeMetricFamily(
        "sluice_documents", "Knowledges (documents) by parse status", labels=["status"]
    )
    if found is not None:
        for status in (*(s.value for s in ParseStatus), *(set(found) - set(ParseStatus))):
            gauge.add_metric([status], float(found.get(status, 0)))
    return gauge
