"""Every process entry point refuses a bad SLUICE_* value (or docreader flag) at start: one
line naming it, a non-zero exit, nothing started; an unknown SLUICE_* variable is a
warning naming the closest known one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import PYTHONPATH

# What full mode requires, so that each case below fails on its own variable only.
FULL_MODE = {
    "SLUICE_MODE": "full",
    "SLUICE_DOCREADER_ADDRESS": "127.0.0.1:9",
    "SLUICE_DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:9/sluice",
    "SLUICE_MILVUS_URI": "http://127.0.0.1:9",
}


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    return subprocess.run(
        [sys.executable, *args],
        env={**clean, "PYTHONPATH": PYTHONPATH, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def error_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if "WARNING" not in line]


@pytest.mark.parametrize(
    ("program", "env", "message"),
    [
        (
            ["-m", "server.main", "--mode", "full"],
            {**FULL_MODE, "SLUICE_AUTH_REQUIRED": "ture"},
            "sluice-server: SLUICE_AUTH_REQUIRED must be one of true/false/1/0/yes/no, not 'ture'",
        ),
        (
            ["-m", "server.main"],
            {"SLUICE_EMBED_BATCH_SIZE": "-32"},
            "sluice-server: SLUICE_EMBED_BATCH_SIZE must be >= 1, not '-32'",
        ),
        (
            ["-m", "workers.main", "--burst"],
            {**FULL_MODE, "SLUICE_MAX_UPLOAD_BYTES": "1GB"},
            "sluice-worker: SLUICE_MAX_UPLOAD_BYTES must be an integer, not '1GB'",
        ),
        (
            ["-m", "workers.housekeeping", "--once"],
            {**FULL_MODE, "SLUICE_HOUSEKEEPING_ENABLED": "maybe"},
            "sluice-housekeeper: SLUICE_HOUSEKEEPING_ENABLED must be one of "
            "true/false/1/0/yes/no, not 'maybe'",
        ),
        (
            ["-m", "workers.housekeeping"],
            {**FULL_MODE, "SLUICE_HOUSEKEEPING_INTERVAL": "0"},
            "sluice-housekeeper: SLUICE_HOUSEKEEPING_INTERVAL must be > 0, not '0'",
        ),
        (
            ["-m", "workers.main", "--burst"],
            {
                "SLUICE_MODE": "full",
                "SLUICE_DOCREADER_ADDRESS": "127.0.0.1:9",
                "SLUICE_MILVUS_URI": "http://127.0.0.1:19530",
            },
            "sluice-worker: SLUICE_DATABASE_URL is required in full mode",
        ),
        (
            ["-m", "server.docreader", "--max-workers", "0"],
            {},
            "python -m server.docreader: argument --max-workers: must be >= 1, not 0 (see --help)",
        ),
        (
            ["-m", "server.docreader", "--parse-timeout-s", "-5"],
            {},
            "python -m server.docreader: argument --parse-timeout-s: must be a finite "
            "number > 0, not '-5' (see --help)",
        ),
    ],
)
def test_a_bad_value_stops_the_process_with_one_line_naming_it(
    program: list[str], env: dict[str, str], message: str, tmp_path: Path
) -> None:
    done = run(program, {"SLUICE_DATA_DIR": str(tmp_path / "data"), **env}, tmp_path)
    assert done.returncode == 2
    assert error_lines(done) == [message]
    assert done.stdout == ""
    assert not (tmp_path / "data").exists()


def test_an_unknown_variable_stops_the_process_naming_the_closest_known_one(
    tmp_path: Path,
) -> None:
    done = run(
        ["-m", "server.main"],
        {"SLUICE_DATA_DIR": str(tmp_path / "data"), "SLUICE_HOUSKEEPING_ENABLED": "false"},
        tmp_path,
    )
    assert done.returncode == 2
    assert error_lines(done) == [
        "sluice-server: SLUICE_HOUSKEEPING_ENABLED is not a Sluice setting; "
        "did you mean SLUICE_HOUSEKEEPING_ENABLED?"
    ]
    assert not (tmp_path / "data").exists()
