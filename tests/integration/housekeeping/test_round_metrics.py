"""The housekeeping rounds' metrics, read from this process's registry as its /metrics would
show them: a round run by the real Housekeeper on the real database and queue counts as ran,
is timed, and adds every sweep's outcomes (a lost task's row requeued, a stalled one failed);
a round another housekeeper's lock kept from running counts as lock_held."""

from __future__ import annotations

from prometheus_client import REGISTRY

from tests.integration.housekeeping.conftest import Scope, add_knowledge, backdate, open_round
from tests.integration.housekeeping.test_stalled_sweep import QUIET_S
from tests.support.databases import REDIS_URL
from workers.context import WorkerContext
from workers.housekeeping.lock import RedisRoundLock
from workers.housekeeping.runner import Housekeeper


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _rows(sweep: str, outcome: str) -> float:
    return _value("sluice_housekeeping_rows_total", sweep=sweep, outcome=outcome)


def test_a_round_is_counted_timed_and_its_outcomes_added(ctx: WorkerContext, scope: Scope) -> None:
    lost = add_knowledge(ctx, scope, parse_status="pending")  # its queued task was lost
    backdate(ctx, lost.id, QUIET_S)
    stalled = add_knowledge(ctx, scope, parse_status="processing", auto_requeues=2)
    open_round(ctx, stalled, 1, running="docreader")
    backdate(ctx, stalled.id, QUIET_S)
    ran = _value("sluice_housekeeping_rounds_total", result="ran")
    timed = _value("sluice_housekeeping_round_duration_seconds_count")
    requeued, failed = _rows("stalled", "requeued"), _rows("stalled", "failed")

    report = Housekeeper(ctx).run_once()

    assert report is not None
    assert (report.stalled["requeued"], report.stalled["failed"]) == (1, 1)
    assert _value("sluice_housekeeping_rounds_total", result="ran") == ran + 1
    assert _value("sluice_housekeeping_round_duration_seconds_count") == timed + 1
    assert _value("sluice_housekeeping_round_duration_seconds_sum") > 0
    assert _rows("stalled", "requeued") == requeued + 1
    assert _rows("stalled", "failed") == failed + 1


def test_a_round_kept_by_the_lock_counts_as_lock_held(ctx: WorkerContext, key_prefix: str) -> None:
    holder = RedisRoundLock(REDIS_URL, key_prefix, ttl_s=60)
    other = RedisRoundLock(REDIS_URL, key_prefix, ttl_s=60)
    held = _value("sluice_housekeeping_rounds_total", result="lock_held")
    timed = _value("sluice_housekeeping_round_duration_seconds_count")
    try:
        assert holder.acquire()
        assert Housekeeper(ctx, other).run_once() is None
    finally:
        holder.release()
        holder.close()
        other.close()
    assert _value("sluice_housekeeping_rounds_total", result="lock_held") == held + 1
    assert _value("sluice_housekeeping_round_duration_seconds_count") == timed
