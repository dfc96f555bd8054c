"""The "metrics" settings group: off by default, ports range-checked, and a multiprocess
directory that is a file refused, each with one line naming the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from workers.settings import Settings, SettingsError


def test_every_endpoint_is_off_by_default() -> None:
    metrics = Settings.from_env(env={}).metrics
    assert (metrics.metrics_port, metrics.worker_metrics_port) == (0, 0)
    assert metrics.metrics_host == "127.0.0.1"
    assert metrics.metrics_multiproc_dir is None


def test_the_ports_are_read() -> None:
    env = {"SLUICE_METRICS_PORT": "9464", "SLUICE_WORKER_METRICS_PORT": "9465"}
    metrics = Settings.from_env(env=env).metrics
    assert (metrics.metrics_port, metrics.worker_metrics_port) == (9464, 9465)


def test_the_housekeepers_port_is_off_by_default_and_read() -> None:
    assert Settings.from_env(env={}).metrics.housekeeper_metrics_port == 0
    env = {"SLUICE_HOUSEKEEPER_METRICS_PORT": "9466"}
    assert Settings.from_env(env=env).metrics.housekeeper_metrics_port == 9466


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("SLUICE_METRICS_PORT", "65536", "SLUICE_METRICS_PORT must be <= 65535"),
        ("SLUICE_WORKER_METRICS_PORT", "-1", "SLUICE_WORKER_METRICS_PORT must be >= 0"),
        ("SLUICE_METRICS_PORT", "http", "SLUICE_METRICS_PORT"),
        ("SLUICE_HOUSEKEEPER_METRICS_PORT", "65536", "SLUICE_HOUSEKEEPER_METRICS_PORT must be"),
    ],
)
def test_a_bad_port_names_its_variable(variable: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_env(env={variable: value})


def test_a_multiprocess_directory_that_is_a_file_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "not-a-dir"
    file.write_text("")
    with pytest.raises(SettingsError, match=r"SLUICE_METRICS_MULTIPROC_DIR .* is not a directory"):
        Settings.from_env(env={"SLUICE_METRICS_MULTIPROC_DIR": str(file)})
