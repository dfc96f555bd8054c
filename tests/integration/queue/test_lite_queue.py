"""LiteTaskQueue where it is its own (threads, time limits, close, lanes); what it shares with
the RQ adapter is in test_queue_contract.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.clock import ManualClock
from storage.queue.base import QueueError, QueueName
from storage.queue.lite import LiteTaskQueue
from storage.queue.pools import POOL_QUEUES, Pool, PoolSpec
from tests.integration.queue.contract import H, events, spec
from tests.integration.queue.handlers import read_log
from tests.support.waiting import wait_until


def _core(threads: int) -> PoolSpec:
    return PoolSpec("core", (QueueName.DEFAULT,), threads)


@pytest.fixture
def queue() -> Iterator[LiteTaskQueue]:
    task_queue = LiteTaskQueue(shutdown_grace_s=2.0)
    yield task_queue
    task_queue.close()


def test_handler_that_exits_or_cannot_be_imported_only_fails_its_task(
    queue: LiteTaskQueue, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    queue.enqueue(
        spec(
            "exit_process",
            {"log": str(log), "final_log": str(final_log), "value": "exit"},
            max_retries=1,
            on_final_failure=f"{H}.final_failure_that_raises",
        )
    )
    queue.enqueue(
        spec(
            "does_not_exist",
            {"final_log": str(final_log), "value": "missing"},
            on_final_failure=f"{H}.record_final_failure",
        )
    )
    queue.enqueue(spec("record", {"log": str(log), "value": "after"}))

    assert queue.join(5)

    assert [e["attempt"] for e in events(log, "attempt")] == [1, 2]
    errors = {e["value"]: e["error"] for e in read_log(final_log)}
    assert errors == {
        "exit": "SystemExit: 3",
        "missing": f"AttributeError: module '{H}' has no attribute 'does_not_exist'",
    }
    assert [e["value"] for e in events(log, "ran")] == ["after"]


def test_timeout_fails_each_attempt(queue: LiteTaskQueue, tmp_path: Path) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    queue.enqueue(
        spec(
            "wait_for_cancel",
            {"log": str(log), "final_log": str(final_log), "max_wait_s": 10},
            timeout_s=1,
            max_retries=1,
            on_final_failure=f"{H}.record_final_failure",
        )
    )

    assert queue.join(5)

    assert [e["attempt"] for e in events(log, "started")] == [1, 2]
    [final] = read_log(final_log)
    assert final["error"] == "TaskTimeout: attempt exceeded its 1s time limit"
    # The abandoned attempts were told to stop through cancel_requested().
    wait_until(lambda: len(events(log, "cancelled")) == 2, timeout=2)


def test_job_id_deduplicates_while_active_and_reruns_afterwards(
    queue: LiteTaskQueue, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    first = queue.enqueue(
        spec("sleep_then_record", {"log": str(log), "sleep_s": 0.5}, job_id="same")
    )
    wait_until(lambda: len(events(log, "started")) == 1)
    second = queue.enqueue(
        spec("sleep_then_record", {"log": str(log), "sleep_s": 0}, job_id="same")
    )
    assert first == second == "same"
    assert queue.join(5)
    assert len(events(log, "started")) == 1

    queue.enqueue(spec("sleep_then_record", {"log": str(log), "sleep_s": 0}, job_id="same"))
    assert queue.join(5)
    assert len(events(log, "started")) == 2


def test_is_queued_and_cancel_group(tmp_path: Path) -> None:
    log = tmp_path / "log"
    clock = ManualClock()
    queue = LiteTaskQueue(
        pools=[_core(1)],
        shutdown_grace_s=2.0,
        pickup_grace_s=0.5,
        clock=clock,
    )
    try:
        # One thread, busy with a task that runs until it is cancelled.
        queue.enqueue(spec("wait_for_cancel", {"log": str(log), "max_wait_s": 10}, group="blocker"))
        wait_until(lambda: len(events(log, "started")) == 1)
        # Just taken, it may not have written its first heartbeat: it still counts.
        assert queue.is_queued("blocker")
        clock.advance(0.6)
        for index in range(3):
            queue.enqueue(spec("record", {"log": str(log), "value": f"a{index}"}, group="a"))
        queue.enqueue(spec("record", {"log": str(log), "value": "b"}, group="b"))

        assert not queue.is_queued("blocker")  # running for longer does not count
        assert queue.is_queued("a")
        assert queue.cancel_group("a") == 3
        assert not queue.is_queued("a")
        assert queue.is_queued("b")
        assert queue.cancel_group("unknown") == 0

        assert queue.cancel_group("blocker") == 1
        assert queue.join(5)
        assert len(events(log, "cancelled")) == 1
        assert [e["value"] for e in events(log, "ran")] == ["b"]
    finally:
        queue.close()


def test_cancelled_tasks_are_neither_retried_nor_dead_lettered(
    queue: LiteTaskQueue, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    # Running when cancelled, then failing (it overruns its time limit).
    queue.enqueue(
        spec(
            "sleep_then_record",
            {"log": str(log), "final_log": str(final_log), "sleep_s": 1.5},
            group="k",
            max_retries=2,
            on_final_failure=f"{H}.record_final_failure",
            timeout_s=1,
        )
    )
    wait_until(lambda: len(events(log, "started")) == 1)
    assert queue.cancel_group("k") == 1
    # Failed once, its retry waiting 5 s when cancelled.
    queue.enqueue(
        spec(
            "fail_always",
            {"log": str(log), "final_log": str(final_log)},
            group="k2",
            max_retries=2,
            retry_intervals=(5,),
            on_final_failure=f"{H}.record_final_failure",
        )
    )
    wait_until(lambda: len(events(log, "attempt")) == 1 and queue.is_queued("k2"))
    assert queue.cancel_group("k2") == 1

    assert queue.join(3)
    assert len(events(log, "started")) == 1
    assert len(events(log, "attempt")) == 1
    assert read_log(final_log) == []


def test_queues_run_in_parallel_with_their_own_attempt_context(tmp_path: Path) -> None:
    log = tmp_path / "log"
    queue = LiteTaskQueue(pools=[_core(2)], shutdown_grace_s=2.0)
    try:
        for name, job_id in (
            (QueueName.DEFAULT, "d1"),
            (QueueName.DEFAULT, "d2"),
            (QueueName.SUMMARY, "s1"),
        ):
            queue.enqueue(
                spec(
                    "sleep_then_record", {"log": str(log), "sleep_s": 1}, queue=name, job_id=job_id
                )
            )
        wait_until(lambda: len(events(log, "started")) == 3, timeout=0.9)
        assert queue.join(5)
        assert sorted(e["job_id"] for e in events(log, "started")) == ["d1", "d2", "s1"]
    finally:
        queue.close()


def test_enqueue_rejects_non_json_payloads_and_use_after_close(tmp_path: Path) -> None:
    queue = LiteTaskQueue()
    with pytest.raises(QueueError):
        queue.enqueue(spec("record", {"log": str(tmp_path / "log"), "value": object()}))
    queue.close()
    with pytest.raises(QueueError):
        queue.enqueue(spec("record", {"log": str(tmp_path / "log")}))


def test_close_drops_waiting_tasks_and_stops_its_threads(tmp_path: Path) -> None:
    log = tmp_path / "log"
    queue = LiteTaskQueue(pools=[_core(1)], shutdown_grace_s=5.0)
    queue.enqueue(spec("wait_for_cancel", {"log": str(log), "max_wait_s": 10}))
    wait_until(lambda: len(events(log, "started")) == 1)
    queue.enqueue(spec("record", {"log": str(log), "value": "never"}))

    queue.close()

    assert queue.join(0)
    assert events(log, "cancelled") != []
    assert events(log, "ran") == []
    assert not [t for t in threading.enumerate() if t.name.startswith("sluice-lite-")]


def test_close_interrupts_a_running_handler_at_its_checkpoint(tmp_path: Path) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    queue = LiteTaskQueue(pools=[_core(1)], shutdown_grace_s=10.0)
    queue.enqueue(
        spec(
            "run_until_shutdown",
            {
                "log": str(log),
                "release": str(tmp_path / "never"),
                "run_s": 60,
                "final_log": str(final_log),
            },
            max_retries=3,
            on_final_failure=f"{H}.record_final_failure",
        )
    )
    wait_until(lambda: len(events(log, "started")) == 1)

    started = time.monotonic()
    queue.close()

    assert time.monotonic() - started < 5
    assert len(events(log, "interrupted")) == 1
    # Neither retried nor dead-lettered: the process is going away, not the task failing.
    assert len(events(log, "started")) == 1
    assert read_log(final_log) == []


def test_an_at_front_task_runs_before_the_backlog(tmp_path: Path) -> None:
    log = tmp_path / "log"
    queue = LiteTaskQueue(pools=[_core(1)], shutdown_grace_s=2.0)
    try:
        queue.enqueue(spec("wait_for_cancel", {"log": str(log), "max_wait_s": 10}, group="blocker"))
        wait_until(lambda: len(events(log, "started")) == 1)
        for value in ("a", "b"):
            queue.enqueue(spec("record", {"log": str(log), "value": value}))
        queue.enqueue(spec("record", {"log": str(log), "value": "front"}, at_front=True))

        queue.cancel_group("blocker")

        assert queue.join(5)
        assert [e["value"] for e in events(log, "ran")] == ["front", "a", "b"]
    finally:
        queue.close()


def test_every_queue_is_consumed_by_its_pool(tmp_path: Path) -> None:
    log = tmp_path / "log"
    pools = [PoolSpec(pool.value, POOL_QUEUES[pool], 1) for pool in Pool]
    queue = LiteTaskQueue(pools=pools, shutdown_grace_s=2.0)
    try:
        for name in QueueName:
            queue.enqueue(spec("record", {"log": str(log), "value": name.value}, queue=name))
        assert queue.join(10)
        assert sorted(e["value"] for e in events(log, "ran")) == sorted(q.value for q in QueueName)
        threads = {t.name.rsplit("-", 1)[0] for t in threading.enumerate()}
        assert {f"sluice-lite-{pool.value}" for pool in Pool} <= threads
    finally:
        queue.close()


def test_a_pool_shares_its_threads_between_its_queues_first_queue_first(tmp_path: Path) -> None:
    """Two threads over two queues: both busy at once whichever queue the tasks are on, and a
    freed thread takes the first queue's waiting task before the second's."""
    log = tmp_path / "log"
    pool = PoolSpec("enrichment", (QueueName.MULTIMODAL, QueueName.SUMMARY), 2)
    queue = LiteTaskQueue(pools=[pool], shutdown_grace_s=2.0)
    try:
        for job_id, sleep_s in (("s1", 0.8), ("s2", 2.0)):
            queue.enqueue(
                spec(
                    "sleep_then_record",
                    {"log": str(log), "sleep_s": sleep_s},
                    queue=QueueName.SUMMARY,
                    job_id=job_id,
                )
            )
        wait_until(lambda: len(events(log, "started")) == 2, timeout=0.7)
        for name, job_id in ((QueueName.SUMMARY, "s3"), (QueueName.MULTIMODAL, "m1")):
            queue.enqueue(
                spec(
                    "sleep_then_record", {"log": str(log), "sleep_s": 0}, queue=name, job_id=job_id
                )
            )
        assert queue.join(5)
        # s1's thread was freed first, while s2's still ran: it took m1 ahead of s3.
        order = [e["job_id"] for e in events(log, "started")]
        assert sorted(order[:2]) == ["s1", "s2"] and order[2:] == ["m1", "s3"]
    finally:
        queue.close()
