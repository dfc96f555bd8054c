"""Multiprocess mode in real processes (it changes a process for good, so each case runs in
a child of its own): a named directory loses only the metric files of an earlier run, the
values a process records land in its files and are read back merged, and switching after
a metric exists is refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

from prometheus_client import CollectorRegistry, multiprocess

from tests.support.processes import PYTHONPATH, REPO, python

RECORD = """
import sys
from pathlib import Path
from workers.observability.metrics import metrics
from workers.observability.metrics_endpoint import use_multiprocess
if sys.argv[2] == "late":
    metrics()
use_multiprocess(Path(sys.argv[1]))
metrics().provider_errors.labels("embedding", "http_503").inc(3)
"""


def _run(folder: Path, when: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        python("-c", RECORD, str(folder), when),
        env={"PYTHONPATH": PYTHONPATH, "PATH": ""},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_values_recorded_in_another_process_are_read_back(tmp_path: Path) -> None:
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_999999.db").write_bytes(b"a dead run's file")
    (folder / "notes.txt").write_text("not ours")

    result = _run(folder, "early")

    assert result.returncode == 0, result.stderr
    assert not (folder / "counter_999999.db").exists()
    assert (folder / "notes.txt").read_text() == "not ours"
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, str(folder))  # type: ignore[no-untyped-call]
    labels = {"kind": "embedding", "reason": "http_503"}
    assert registry.get_sample_value("sluice_provider_errors_total", labels) == 3


def test_switching_after_a_metric_exists_is_refused(tmp_path: Path) -> None:
    result = _run(tmp_path, "late")

    assert result.returncode == 1
    assert "multiprocess mode must be chosen before the first metric is made" in result.stderr
