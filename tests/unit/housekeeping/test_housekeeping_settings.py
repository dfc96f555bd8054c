"""Housekeeping settings come from SLUICE_* variables, with the spec's defaults."""

from __future__ import annotations

import pytest

from workers.settings import Settings, SettingsError


def test_defaults_follow_the_spec() -> None:
    settings = Settings.from_env(env={})
    assert settings.housekeeping.housekeeping_enabled is True
    assert settings.housekeeping.housekeeping_interval_s == 300
    # max(1 h, the 2 h document process timeout) + 10 min
    assert settings.stale_threshold_s == 7800
    assert settings.housekeeping.summary_stale_after_s == 3600
    assert settings.api.stall_verdict_after_s == 1200
    assert settings.housekeeping.max_auto_requeues == 2


def test_the_stale_threshold_follows_the_process_timeout_unless_set() -> None:
    short = Settings.from_env(env={"SLUICE_DOCUMENT_PROCESS_TIMEOUT": "60"})
    assert short.stale_threshold_s == 3600 + 600
    assert Settings.from_env(env={"SLUICE_STALE_AFTER": "20"}).stale_threshold_s == 20


def test_variables_override_every_setting() -> None:
    settings = Settings.from_env(
        env={
            "SLUICE_HOUSEKEEPING_ENABLED": "false",
            "SLUICE_HOUSEKEEPING_INTERVAL": "2.5",
            "SLUICE_SUMMARY_STALE_AFTER": "30",
            "SLUICE_STALL_VERDICT_AFTER": "40",
            "SLUICE_MAX_AUTO_REQUEUES": "0",
        }
    )
    assert settings.housekeeping.housekeeping_enabled is False
    assert settings.housekeeping.housekeeping_interval_s == 2.5
    assert settings.housekeeping.summary_stale_after_s == 30
    assert settings.api.stall_verdict_after_s == 40
    assert settings.housekeeping.max_auto_requeues == 0


@pytest.mark.parametrize(
    "env",
    [
        {"SLUICE_HOUSEKEEPING_INTERVAL": "0"},
        {"SLUICE_HOUSEKEEPING_INTERVAL": "soon"},
        {"SLUICE_MAX_AUTO_REQUEUES": "-1"},
    ],
)
def test_unusable_values_are_refused(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env(env=env)
