"""The queue gauges read from the real Redis when scraped: each queue's waiting tasks of this
deployment's prefix only, and a Redis that does not answer costs only these gauges (their
source is reported down, the scrape itself goes on)."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import CollectorRegistry

from storage.queue.base import QueueName, TaskSpec
from storage.queue.rq_queue import RQTaskQueue
from tests.integration.queue.contract import H
from tests.support.databases import REDIS_URL
from tests.support.processes import free_port
from workers.observability.metrics_collectors import QueueCollector, rq_queue_reader


def _registry(redis_url: str, key_prefix: str) -> CollectorRegistry:
    registry = CollectorRegistry()
    registry.register(QueueCollector(rq_queue_reader(redis_url, key_prefix)))
    return registry


def test_the_depth_of_each_queue_is_read_from_redis(
    key_prefix: str, other_key_prefix: str, tmp_path: Path
) -> None:
    mine = RQTaskQueue(REDIS_URL, key_prefix=key_prefix)
    other = RQTaskQueue(REDIS_URL, key_prefix=other_key_prefix)
    payload = {"log": str(tmp_path / "log")}
    try:
        for queue, name in (
            (mine, QueueName.LOW),
            (mine, QueueName.LOW),
            (mine, QueueName.DEFAULT),
            (other, QueueName.LOW),
        ):
            queue.enqueue(TaskSpec(handler=f"{H}.record", payload=payload, queue=name))
    finally:
        mine.close()
        other.close()

    registry = _registry(REDIS_URL, key_prefix)

    def depth(queue: QueueName) -> float | None:
        return registry.get_sample_value("sluice_queue_depth", {"queue": queue.value})

    assert depth(QueueName.LOW) == 2
    assert depth(QueueName.DEFAULT) == 1
    assert depth(QueueName.SUMMARY) == 0
    assert registry.get_sample_value("sluice_queue_started", {"queue": "low"}) == 0
    assert registry.get_sample_value("sluice_queue_source_up") == 1


def test_a_redis_that_does_not_answer_reports_the_source_down(key_prefix: str) -> None:
    registry = _registry(f"redis://127.0.0.1:{free_port()}/0", key_prefix)

    assert registry.get_sample_value("sluice_queue_source_up") == 0
    assert registry.get_sample_value("sluice_queue_depth", {"queue": "low"}) is None
