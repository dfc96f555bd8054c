"""The telemetry group: levels in any case, bounded sample ratios, and the docreader's
reading of the group alone, with the same one-line refusals as the whole settings."""

from __future__ import annotations

import pytest

from workers.settings import Settings, SettingsError
from workers.settings_telemetry import telemetry_or_exit


def test_defaults_are_json_at_info_with_tracing_off() -> None:
    telemetry = Settings.from_env(env={}).telemetry
    assert (telemetry.log_level, telemetry.log_format, telemetry.otlp_endpoint) == (
        "INFO",
        "json",
        "",
    )
    assert telemetry.trace_sample_ratio == 1.0


def test_a_level_is_read_in_any_case() -> None:
    assert Settings.from_env(env={"SLUICE_LOG_LEVEL": " warning "}).telemetry.log_level == (
        "WARNING"
    )


@pytest.mark.parametrize(("value", "bound"), [("1.5", "<= 1"), ("-0.1", ">= 0")])
def test_a_sample_ratio_outside_0_to_1_is_refused(value: str, bound: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env(env={"SLUICE_TRACE_SAMPLE_RATIO": value})
    assert str(refused.value) == f"SLUICE_TRACE_SAMPLE_RATIO must be {bound}, not '{value}'"


def test_the_group_alone_ignores_other_variables_and_refuses_bad_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = {"SLUICE_LOG_FORMAT": "console", "SLUICE_MODE": "full"}
    assert telemetry_or_exit("docreader", env).log_format == "console"
    with pytest.raises(SystemExit) as stopped:
        telemetry_or_exit("docreader", {"SLUICE_LOG_LEVEL": "loud"})
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "docreader: SLUICE_LOG_LEVEL must be 'DEBUG', 'INFO', 'WARNING', 'ERROR' or "
        "'CRITICAL', not 'LOUD'\n"
    )


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("notaurl", "an http:// or https:// URL of the collector"),
        ("grpc://collector:4317", "an http:// or https:// URL of the collector"),
        ("http://collector", "the URL must name the collector's port"),
        ("http://collector:99999", "not a URL"),
    ],
)
def test_an_otlp_endpoint_that_is_no_collector_url_is_refused(value: str, reason: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env(env={"SLUICE_OTLP_ENDPOINT": value})
    assert "SLUICE_OTLP_ENDPOINT" in str(refused.value)
    assert reason in str(refused.value)


@pytest.mark.parametrize("value", ["http://127.0.0.1:4317", "https://collector.example:443"])
def test_a_collector_url_is_taken(value: str) -> None:
    assert Settings.from_env(env={"SLUICE_OTLP_ENDPOINT": value}).telemetry.otlp_endpoint == value
