"""Recovered rows explain themselves in the spec's words and formats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from workers.housekeeping.stall_site import StallSite
from workers.housekeeping.wording import go_duration, iso_z, restart_message, stall_message

AT = datetime(2026, 9, 22, 9, 37, 54, 812_000, tzinfo=UTC)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(7800, "2h10m0s"), (3600, "1h0m0s"), (300, "5m0s"), (61, "1m1s"), (20, "20s"), (0, "0s")],
)
def test_durations_are_printed_as_go_prints_them(seconds: int, text: str) -> None:
    assert go_duration(seconds) == text


def test_times_are_utc_to_the_second_with_a_z() -> None:
    assert iso_z(AT) == "2026-09-22T09:37:54Z"
    assert iso_z(AT.astimezone(timezone(timedelta(hours=3)))) == "2026-09-22T09:37:54Z"


def test_the_specs_example_message() -> None:
    message = stall_message("processing", StallSite("docreader", None, "docreader"), AT, 7800)
    assert message == (
        "task stuck in processing at docreader stage: no progress since 2026-09-22T09:37:54Z "
        "(> 2h10m0s), recovered by housekeeping"
    )


def test_a_step_is_named_after_its_stage_and_an_unknown_heartbeat_has_no_time() -> None:
    site = StallSite("postprocess", "postprocess.summary", "postprocess.summary")
    assert stall_message("finalizing", site, None, 7800) == (
        "task stuck in finalizing at postprocess stage (postprocess.summary): "
        "no progress for > 2h10m0s, recovered by housekeeping"
    )


def test_a_restart_is_not_called_a_stall() -> None:
    assert restart_message("pending", StallSite(), AT) == (
        "task interrupted in pending by a restart: last progress at 2026-09-22T09:37:54Z, "
        "recovered at startup"
    )
