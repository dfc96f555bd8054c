"""The embedding stage's projection against its try's time limit, on a clock the test
moves: no warning while the work fits, a warning once it cannot, nothing without a limit."""

from __future__ import annotations

from workers.pipeline.round.time_limit import TimeBudget


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_batch_rate_that_fits_the_limit_projects_without_a_warning() -> None:
    clock = Clock()
    budget = TimeBudget(limit_s=100, started_at=clock.now, clock=clock)
    reports = []
    for done in (10, 20, 30):
        clock.now += 1.0  # 10 chunks a second; 70 left need 7 s of the 97 s left
        reports.append(budget.report(done, 100))
    assert reports[0] == {"time_limit_s": 100, "time_left_s": 99}
    assert "projected_s_to_finish" not in reports[1], "one batch measures no rate yet"
    last = reports[2]
    assert (last["chunks_per_s"], last["projected_s_to_finish"]) == (10.0, 7)
    assert "time_limit_warning" not in last


def test_a_projection_past_the_limit_warns_before_it_is_hit() -> None:
    clock = Clock()
    budget = TimeBudget(limit_s=60, started_at=clock.now, clock=clock)
    clock.now += 30.0  # the parse took half the limit; what it resumed does not count
    budget.report(400, 1000)
    for done in (410, 420):
        clock.now += 2.0  # 5 chunks a second: 580 left need 116 s, 26 s are left
        report = budget.report(done, 1000)
    assert report["time_left_s"] == 26
    assert report["projected_s_to_finish"] == 116
    assert report["time_limit_warning"] == (
        "at 5.0 chunks/s the remaining 580 chunks need about 116s, but this try's time "
        "limit ends in 26s; a retry goes on from the last indexed batch"
    )


def test_no_known_limit_reports_nothing() -> None:
    budget = TimeBudget(limit_s=0, started_at=0.0, clock=Clock())
    assert budget.report(10, 100) == {}


def test_the_budget_is_spent_once_the_limit_is_reached() -> None:
    clock = Clock()
    budget = TimeBudget(limit_s=10, started_at=clock.now, clock=clock)
    clock.now += 9.0
    assert not budget.spent()
    clock.now += 0.6  # within the margin of the limit: the alarm may already have struck
    assert budget.spent()
    clock.now += 5.0
    assert budget.spent()


def test_without_a_limit_the_budget_is_never_spent() -> None:
    clock = Clock()
    budget = TimeBudget(limit_s=0, started_at=clock.now, clock=clock)
    clock.now += 1e6
    assert not budget.spent()
