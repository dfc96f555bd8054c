"""What every TaskQueue adapter promises, checked against the lite queue and against the RQ
queue with real RQ workers alike (adapter-specific behaviour: test_lite_queue.py,
test_rq_queue.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.queue.base import NotInTaskError
from tests.integration.queue.contract import (
    Adapter,
    H,
    events,
    lite_adapter,
    rq_adapter,
    spec,
)
from tests.integration.queue.handlers import read_log
from tests.support.waiting import wait_until


@pytest.fixture(params=("lite", "rq"))
def adapter(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    if request.param == "lite":
        yield from lite_adapter()
        return
    yield from rq_adapter(
        request.getfixturevalue("workers"),
        request.getfixturevalue("key_prefix"),
        request.getfixturevalue("redis_client"),
    )


def test_task_runs_with_its_payload_and_attempt(adapter: Adapter, tmp_path: Path) -> None:
    log = tmp_path / "log"
    job_id = adapter.queue.enqueue(spec("record", {"log": str(log), "value": "hello"}))

    adapter.drain()

    [entry] = read_log(log)
    assert entry["event"] == "ran"
    assert entry["value"] == "hello"
    assert entry["job_id"] == job_id
    assert (entry["attempt"], entry["max_attempts"], entry["is_last"]) == (1, 1, True)


def test_failing_task_runs_four_attempts_and_dead_letters_once(
    adapter: Adapter, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    adapter.queue.enqueue(
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

    adapter.drain()

    attempts = events(log, "attempt")
    assert [a["attempt"] for a in attempts] == [1, 2, 3, 4]
    assert [a["is_last"] for a in attempts] == [False, False, False, True]
    assert {a["job_id"] for a in attempts} == {"doc-k1"}
    [final] = read_log(final_log)
    assert final["error"] == "RuntimeError: boom k1"
    assert final["value"] == "k1"
    assert not adapter.queue.is_queued("k1")
    # The group's bookkeeping is gone once the task is over.
    assert adapter.group_bookkeeping("k1") == 0


def test_task_that_succeeds_on_a_retry_is_not_dead_lettered(
    adapter: Adapter, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    adapter.queue.enqueue(
        spec(
            "fail_until",
            {"log": str(log), "final_log": str(final_log), "succeed_on": 3},
            max_retries=3,
            on_final_failure=f"{H}.record_final_failure",
        )
    )

    adapter.drain()

    assert [(e["event"], e["attempt"]) for e in read_log(log)] == [
        ("attempt", 1),
        ("attempt", 2),
        ("ran", 3),
    ]
    assert read_log(final_log) == []


def test_raising_dead_letter_callback_is_contained(adapter: Adapter, tmp_path: Path) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    adapter.queue.enqueue(
        spec(
            "fail_always",
            {"log": str(log), "final_log": str(final_log)},
            max_retries=1,
            on_final_failure=f"{H}.final_failure_that_raises",
        )
    )
    adapter.queue.enqueue(spec("record", {"log": str(log), "value": "after"}))

    adapter.drain()

    assert len(events(log, "attempt")) == 2
    assert len(read_log(final_log)) == 1
    assert [e["value"] for e in events(log, "ran")] == ["after"]


def test_retry_waits_its_interval_and_counts_as_queued(adapter: Adapter, tmp_path: Path) -> None:
    log = tmp_path / "log"
    adapter.serve()
    adapter.queue.enqueue(
        spec(
            "fail_until",
            {"log": str(log), "succeed_on": 2},
            group="k",
            max_retries=1,
            retry_intervals=(1,),
        )
    )
    wait_until(lambda: len(events(log, "attempt")) == 1)
    # Between the first attempt's failure and the retry, the task counts as queued (the
    # failing attempt itself is running, not queued, so wait for it to be rescheduled).
    wait_until(lambda: adapter.queue.is_queued("k"))
    assert not events(log, "ran")

    adapter.settle("k")

    [failed], [ran] = events(log, "attempt"), events(log, "ran")
    assert ran["at"] - failed["at"] >= 0.9
    assert not adapter.queue.is_queued("k")
    adapter.stop()


def test_job_id_deduplicates_while_running(adapter: Adapter, tmp_path: Path) -> None:
    log = tmp_path / "log"
    adapter.serve()
    adapter.queue.enqueue(
        spec("sleep_then_record", {"log": str(log), "sleep_s": 1.5}, job_id="busy")
    )
    wait_until(lambda: len(events(log, "started")) == 1)

    assert adapter.queue.enqueue(
        spec("sleep_then_record", {"log": str(log), "sleep_s": 0}, job_id="busy")
    )
    wait_until(lambda: len(events(log, "done")) == 1)
    adapter.queue.enqueue(spec("record", {"log": str(log), "value": "marker"}))
    wait_until(lambda: len(events(log, "ran")) == 1)

    assert len(events(log, "started")) == 1
    adapter.stop()


def test_a_running_task_sees_cancel_requested(adapter: Adapter, tmp_path: Path) -> None:
    log = tmp_path / "log"
    adapter.serve()
    adapter.queue.enqueue(spec("wait_for_cancel", {"log": str(log), "max_wait_s": 20}, group="k"))
    wait_until(lambda: len(events(log, "started")) == 1)

    assert adapter.queue.cancel_group("k") == 1

    wait_until(lambda: len(events(log, "cancelled")) == 1, timeout=5)
    adapter.stop()


def test_a_task_that_fails_after_its_cancel_is_not_retried(
    adapter: Adapter, tmp_path: Path
) -> None:
    log, final_log = tmp_path / "log", tmp_path / "final"
    adapter.serve()
    adapter.queue.enqueue(
        spec(
            "fail_when_cancelled",
            {"log": str(log), "final_log": str(final_log), "max_wait_s": 20},
            group="k",
            max_retries=2,
            retry_intervals=(1,),
            on_final_failure=f"{H}.record_final_failure",
        )
    )
    wait_until(lambda: len(events(log, "attempt")) == 1)

    assert adapter.queue.cancel_group("k") == 1
    wait_until(lambda: not adapter.queue.is_queued("k"), timeout=5)
    adapter.queue.enqueue(spec("sleep_then_record", {"log": str(log), "sleep_s": 2}))
    wait_until(lambda: len(events(log, "done")) == 1)  # outlives the retry delay

    assert len(events(log, "attempt")) == 1
    assert read_log(final_log) == []  # cancelled, not dead-lettered
    adapter.stop()


def test_task_context_is_unavailable_outside_a_handler(adapter: Adapter) -> None:
    with pytest.raises(NotInTaskError):
        adapter.queue.attempt_info()
    with pytest.raises(NotInTaskError):
        adapter.queue.cancel_requested()
