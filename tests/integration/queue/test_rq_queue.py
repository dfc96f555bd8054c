"""RQTaskQueue against the real Redis with real RQ worker processes, where it is its own (work
horses, scheduled retries, prefixes, priorities); what it shares with the lite queue is in
test_queue_contract.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.queue.base import QueueName, TaskSpec
from storage.queue.rq_queue import RQTaskQueue
from tests.integration.queue.contract import H, events, spec
from tests.integration.queue.handlers import read_log
from tests.support.databases import REDIS_URL
from tests.support.rq_workers import WorkerProcesses
from tests.support.waiting import wait_until


@pytest.fixture
def queue(key_prefix: str) -> Iterator[RQTaskQueue]:
    task_queue = RQTaskQueue(REDIS_URL, key_prefix=key_prefix)
    yield task_queue
    task_queue.close()


def test_killed_work_horse_is_retried_then_dead_lettered(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    queue.enqueue(
        spec(
            "kill_own_process",
            {"log": str(log), "final_log": str(final_log)},
            group="k",
            max_retries=1,
            on_final_failure=f"{H}.record_final_failure",
        )
    )

    workers.run_burst(key_prefix)

    assert [e["attempt"] for e in events(log, "attempt")] == [1, 2]
    [final] = read_log(final_log)
    assert final["error"].startswith("work horse died")
    assert not queue.is_queued("k")


def test_timeout_fails_each_attempt(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    queue.enqueue(
        spec(
            "sleep_then_record",
            {"log": str(log), "final_log": str(final_log), "sleep_s": 10},
            timeout_s=1,
            max_retries=1,
            on_final_failure=f"{H}.record_final_failure",
        )
    )

    workers.run_burst(key_prefix)

    assert [e["attempt"] for e in events(log, "started")] == [1, 2]
    assert events(log, "done") == []
    [final] = read_log(final_log)
    assert final["error"].startswith("JobTimeoutException")


def test_job_id_deduplicates_while_active_and_reruns_afterwards(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    first = queue.enqueue(spec("record", {"log": str(log), "value": 1}, job_id="same"))
    second = queue.enqueue(spec("record", {"log": str(log), "value": 2}, job_id="same"))
    assert first == second == "same"

    workers.run_burst(key_prefix)
    assert [e["value"] for e in read_log(log)] == [1]

    # Finished: the same id may run again.
    assert queue.enqueue(spec("record", {"log": str(log), "value": 3}, job_id="same")) == "same"
    workers.run_burst(key_prefix)
    assert [e["value"] for e in read_log(log)] == [1, 3]


def test_is_queued_and_cancel_group_on_waiting_tasks(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    for index in range(3):
        queue.enqueue(spec("record", {"log": str(log), "value": f"a{index}"}, group="a"))
    queue.enqueue(spec("record", {"log": str(log), "value": "b"}, group="b"))
    queue.enqueue(spec("record", {"log": str(log), "value": "none"}))

    assert queue.is_queued("a")
    assert queue.cancel_group("a") == 3
    assert not queue.is_queued("a")
    assert queue.is_queued("b")
    assert queue.cancel_group("unknown") == 0

    workers.run_burst(key_prefix)

    assert sorted(e["value"] for e in read_log(log)) == ["b", "none"]
    assert not queue.is_queued("b")


def test_cancel_group_removes_a_retry_scheduled_for_later(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    worker = workers.start(key_prefix, burst=False)
    queue.enqueue(
        spec("fail_always", {"log": str(log)}, group="k", max_retries=2, retry_intervals=(2,))
    )
    wait_until(lambda: len(events(log, "attempt")) == 1)
    # Until the worker has finished handling the failure the job is still "started" (and
    # rightly counts as queued after a cancel); the case here is the retry waiting its delay.
    wait_until(lambda: [status for _, status in queue._group_members("k")] == ["scheduled"])

    assert queue.cancel_group("k") == 1
    assert not queue.is_queued("k")
    queue.enqueue(spec("sleep_then_record", {"log": str(log), "sleep_s": 3}))
    wait_until(lambda: len(events(log, "done")) == 1)  # outlives the retry delay

    assert len(events(log, "attempt")) == 1
    assert workers.stop(worker) == 0


def test_cancel_group_stops_a_running_task(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    worker = workers.start(key_prefix, burst=False)
    queue.enqueue(
        spec(
            "sleep_then_record",
            {"log": str(log), "final_log": str(final_log), "sleep_s": 30},
            group="k",
            max_retries=2,
            on_final_failure=f"{H}.record_final_failure",
        )
    )
    wait_until(lambda: len(events(log, "started")) == 1)
    # Taken a moment ago: it counts as queued until its pickup grace is over.
    assert queue.is_queued("k")

    assert queue.cancel_group("k") == 1

    # The single worker is free again only if the 30 s task was stopped.
    queue.enqueue(spec("record", {"log": str(log), "value": "next"}))
    wait_until(lambda: len(events(log, "ran")) == 1, timeout=5)
    assert events(log, "done") == []
    assert len(events(log, "started")) == 1  # a stopped task is not retried
    assert read_log(final_log) == []  # ... nor dead-lettered
    assert workers.stop(worker) == 0  # SIGTERM: warm shutdown of an idle worker


def test_prefixes_isolate_deployments_on_one_redis(
    key_prefix: str, other_key_prefix: str, workers: WorkerProcesses, tmp_path: Path
) -> None:
    log_a, log_b = tmp_path / "a", tmp_path / "b"
    queue_a = RQTaskQueue(REDIS_URL, key_prefix=key_prefix)
    queue_b = RQTaskQueue(REDIS_URL, key_prefix=other_key_prefix)
    try:
        queue_a.enqueue(spec("record", {"log": str(log_a), "value": "a"}, job_id="x", group="g"))
        queue_b.enqueue(spec("record", {"log": str(log_b), "value": "b"}, job_id="x", group="g"))

        workers.run_burst(key_prefix)
        assert [e["value"] for e in read_log(log_a)] == ["a"]
        assert read_log(log_b) == []
        assert not queue_a.is_queued("g")
        assert queue_b.is_queued("g")
        assert queue_a.cancel_group("g") == 0
        assert queue_b.is_queued("g")

        workers.run_burst(other_key_prefix)
        assert [e["value"] for e in read_log(log_b)] == ["b"]
    finally:
        queue_a.close()
        queue_b.close()


def test_worker_honours_queue_priority(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    for name in (QueueName.LOW, QueueName.SUMMARY, QueueName.DEFAULT):
        queue.enqueue(
            TaskSpec(
                handler=f"{H}.record", payload={"log": str(log), "value": name.value}, queue=name
            )
        )

    workers.run_burst(key_prefix, [QueueName.DEFAULT, QueueName.SUMMARY, QueueName.LOW])

    assert [e["value"] for e in read_log(log)] == ["default", "summary", "low"]
