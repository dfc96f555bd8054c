"""RQTaskQueue against the real Redis with real RQ worker processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import Redis

from storage.queue.base import NotInTaskError, QueueName, TaskSpec
from storage.queue.rq_queue import RQTaskQueue
from tests.integration.queue.handlers import read_log
from tests.support.databases import REDIS_URL
from tests.support.rq_workers import WorkerProcesses
from tests.support.waiting import wait_until

H = "tests.integration.queue.handlers"


@pytest.fixture
def queue(key_prefix: str) -> Iterator[RQTaskQueue]:
    task_queue = RQTaskQueue(REDIS_URL, key_prefix=key_prefix)
    yield task_queue
    task_queue.close()


def spec(handler: str, payload: dict[str, Any], **options: Any) -> TaskSpec:
    return TaskSpec(handler=f"{H}.{handler}", payload=payload, queue=QueueName.DEFAULT, **options)


def events(path: Path, name: str) -> list[dict[str, Any]]:
    return [entry for entry in read_log(path) if entry["event"] == name]


def test_task_runs_with_its_payload_and_attempt(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    job_id = queue.enqueue(spec("record", {"log": str(log), "value": "hello"}))

    workers.run_burst(key_prefix)

    [entry] = read_log(log)
    assert entry["event"] == "ran"
    assert entry["value"] == "hello"
    assert entry["job_id"] == job_id
    assert (entry["attempt"], entry["max_attempts"], entry["is_last"]) == (1, 1, True)


def test_failing_task_runs_four_attempts_and_dead_letters_once(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path,
    redis_client: Redis,
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    queue.enqueue(
        spec(
            "fail_always",
            {"log": str(log), "final_log": str(final_log), "value": "k1"},
            job_id="doc-k1",
            group="k1",
            max_retries=3,
            retry_intervals=(0,),
            on_final_failure=f"{H}.record_final_failure",
        )
    )

    workers.run_burst(key_prefix)

    attempts = events(log, "attempt")
    assert [a["attempt"] for a in attempts] == [1, 2, 3, 4]
    assert [a["is_last"] for a in attempts] == [False, False, False, True]
    assert {a["job_id"] for a in attempts} == {"doc-k1"}
    [final] = read_log(final_log)
    assert final["error"] == "RuntimeError: boom k1"
    assert final["value"] == "k1"
    assert not queue.is_queued("k1")
    # The group's bookkeeping is gone once the task is over.
    assert redis_client.exists(f"{key_prefix}:queue:group:k1") == 0


def test_task_that_succeeds_on_a_retry_is_not_dead_lettered(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    queue.enqueue(
        spec(
            "fail_until",
            {"log": str(log), "final_log": str(final_log), "succeed_on": 3},
            max_retries=3,
            on_final_failure=f"{H}.record_final_failure",
        )
    )

    workers.run_burst(key_prefix)

    assert [(e["event"], e["attempt"]) for e in read_log(log)] == [
        ("attempt", 1), ("attempt", 2), ("ran", 3),
    ]
    assert read_log(final_log) == []


def test_raising_dead_letter_callback_is_contained(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    queue.enqueue(
        spec(
            "fail_always",
            {"log": str(log), "final_log": str(final_log)},
            max_retries=1,
            on_final_failure=f"{H}.final_failure_that_raises",
        )
    )
    queue.enqueue(spec("record", {"log": str(log), "value": "after"}))

    workers.run_burst(key_prefix)

    assert len(events(log, "attempt")) == 2
    assert len(read_log(final_log)) == 1
    assert [e["value"] for e in events(log, "ran")] == ["after"]


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


def test_job_id_deduplicates_while_running(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    worker = workers.start(key_prefix, burst=False)
    queue.enqueue(spec("sleep_then_record", {"log": str(log), "sleep_s": 1.5}, job_id="busy"))
    wait_until(lambda: len(events(log, "started")) == 1)

    assert queue.enqueue(spec("sleep_then_record", {"log": str(log), "sleep_s": 0}, job_id="busy"))
    wait_until(lambda: len(events(log, "done")) == 1)
    queue.enqueue(spec("record", {"log": str(log), "value": "marker"}))
    wait_until(lambda: len(events(log, "ran")) == 1)

    assert len(events(log, "started")) == 1
    assert workers.stop(worker) == 0


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
    wait_until(lambda: queue.is_queued("k"))  # waiting in the scheduled registry

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


def test_simple_worker_task_sees_cancel_requested(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    worker = workers.start(key_prefix, burst=False, simple=True)
    queue.enqueue(spec("wait_for_cancel", {"log": str(log), "max_wait_s": 20}, group="k"))
    wait_until(lambda: len(events(log, "started")) == 1)

    assert queue.cancel_group("k") == 1

    wait_until(lambda: len(events(log, "cancelled")) == 1, timeout=5)
    assert workers.stop(worker) == 0


def test_a_task_that_fails_after_its_cancel_is_not_retried(
    queue: RQTaskQueue, workers: WorkerProcesses, key_prefix: str, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    worker = workers.start(key_prefix, burst=False, simple=True)
    queue.enqueue(
        spec(
            "fail_when_cancelled", {"log": str(log), "final_log": str(final_log), "max_wait_s": 20},
            group="k", max_retries=2, retry_intervals=(1,),
            on_final_failure=f"{H}.record_final_failure",
        )
    )
    wait_until(lambda: len(events(log, "attempt")) == 1)

    assert queue.cancel_group("k") == 1
    wait_until(lambda: not queue.is_queued("k"), timeout=5)
    queue.enqueue(spec("sleep_then_record", {"log": str(log), "sleep_s": 2}))
    wait_until(lambda: len(events(log, "done")) == 1)  # outlives the retry delay

    assert len(events(log, "attempt")) == 1
    assert read_log(final_log) == []  # cancelled, not dead-lettered
    assert workers.stop(worker) == 0


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
            TaskSpec(handler=f"{H}.record", payload={"log": str(log), "value": name.value},
                     queue=name)
        )

    workers.run_burst(key_prefix, [QueueName.DEFAULT, QueueName.SUMMARY, QueueName.LOW])

    assert [e["value"] for e in read_log(log)] == ["default", "summary", "low"]


def test_task_context_is_unavailable_outside_a_handler(queue: RQTaskQueue) -> None:
    with pytest.raises(NotInTaskError):
        queue.attempt_info()
    with pytest.raises(NotInTaskError):
        queue.cancel_requested()
