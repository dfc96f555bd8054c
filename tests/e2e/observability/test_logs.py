"""Every process logs one JSON object a line (SLUICE_LOG_FORMAT=json, the default) at the
level SLUICE_LOG_LEVEL names, with an access record per RPC; a level that is no level stops
the process before it starts, naming the variable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sluice_client import NotFound, SluiceClient

from tests.e2e.stacks import Stack, lite_stack
from tests.support.processes import PYTHONPATH
from tests.support.waiting import wait_until

CREATE_KB = "/sluice.v1.KnowledgeBaseService/CreateKnowledgeBase"
GET_KNOWLEDGE = "/sluice.v1.KnowledgeService/GetKnowledge"
NOISY = ("milvus_lite", "pymilvus", "grpc", "urllib3", "httpx")
LEVELS = ("debug", "info", "warning", "error", "critical")


def _records(stack: Stack) -> list[dict[str, Any]]:
    """Every line of the process parsed as JSON; the one line Sluice prints for scripts
    (where it listens) is the only other one allowed."""
    records = []
    for line in stack.processes["api"].lines:
        if line.startswith("sluice lite mode listening on "):
            continue
        records.append(json.loads(line))
    return records


def _calls(stack: Stack) -> None:
    """Two calls, then until the second one's record is written (after its answer)."""
    with SluiceClient(stack.target) as client:
        client.create_knowledge_base(f"logs-{uuid.uuid4().hex[:8]}")
        with pytest.raises(NotFound):
            client.get_knowledge(str(uuid.uuid4()))
    if stack.env.get("SLUICE_LOG_LEVEL", "").upper() in ("", "DEBUG", "INFO"):
        wait_until(
            lambda: any(GET_KNOWLEDGE in line for line in stack.processes["api"].lines),
            timeout=10,
            what="the access record of GetKnowledge",
        )


@pytest.fixture(scope="module")
def info_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"SLUICE_LOG_LEVEL": "info", "SLUICE_LOG_FORMAT": "json"}
    with lite_stack(tmp_path_factory.mktemp("logs-info"), env) as stack:
        _calls(stack)
        yield stack


def test_each_rpc_has_an_access_record(info_stack: Stack) -> None:
    access = [r for r in _records(info_stack) if r.get("logger") == "sluice.access"]
    created = next(r for r in access if r["method"] == CREATE_KB)
    assert created["event"] == "rpc" and created["level"] == "info"
    assert created["code"] == "OK"
    assert isinstance(created["duration_ms"], float) and created["duration_ms"] >= 0
    assert created["peer"].startswith("ipv4:127.0.0.1:")
    assert created["request_bytes"] > len("logs-")
    assert created["timestamp"].endswith("Z")
    missing = next(r for r in access if r["method"] == GET_KNOWLEDGE)
    assert missing["code"] == "NOT_FOUND" and missing["level"] == "info"
    # No span is active with tracing off: no ids to show.
    assert "trace_id" not in created


def test_records_keep_to_the_level_and_libraries_to_warning(info_stack: Stack) -> None:
    records = _records(info_stack)
    assert {r["level"] for r in records} <= {"info", "warning", "error", "critical"}
    assert any(r["logger"] == "server.runtime" for r in records)  # a plain getLogger call
    chatty = [
        r for r in records if r["logger"].startswith(NOISY) and r["level"] in ("debug", "info")
    ]
    assert chatty == []


def test_at_warning_there_is_no_info_record(tmp_path: Path) -> None:
    with lite_stack(tmp_path, {"SLUICE_LOG_LEVEL": "WARNING"}) as stack:
        _calls(stack)
        records = _records(stack)
    assert all(LEVELS.index(r["level"]) >= LEVELS.index("warning") for r in records), records


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
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


FULL_MODE = {
    "SLUICE_MODE": "full",
    "SLUICE_DOCREADER_ADDRESS": "127.0.0.1:9",
    "SLUICE_DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:9/sluice",
    "SLUICE_MILVUS_URI": "http://127.0.0.1:9",
}


API = ["-m", "server.main", "--mode", "lite", "--address", "127.0.0.1:0"]
LEVEL_TYPO = (
    "SLUICE_LOG_LEVEL",
    "verbose",
    "SLUICE_LOG_LEVEL must be 'DEBUG', 'INFO', 'WARNING', 'ERROR' or 'CRITICAL', not 'VERBOSE'",
)

FORMAT_TYPO = (
    "SLUICE_LOG_FORMAT",
    "xml",
    "SLUICE_LOG_FORMAT must be 'json' or 'console', not 'xml'",
)


@pytest.mark.parametrize(
    ("args", "setting"),
    [
        (API, LEVEL_TYPO),
        (["-m", "workers.main"], LEVEL_TYPO),
        (["-m", "workers.housekeeping"], LEVEL_TYPO),
        (["-m", "server.docreader", "--address", "127.0.0.1:0"], LEVEL_TYPO),
        (API, FORMAT_TYPO),
    ],
    ids=["api", "worker", "housekeeper", "docreader", "api-format"],
)
def test_a_bad_log_setting_stops_the_process(
    args: list[str], setting: tuple[str, str, str], tmp_path: Path
) -> None:
    variable, value, message = setting
    done = _run(args, {**FULL_MODE, "SLUICE_DATA_DIR": str(tmp_path), variable: value}, tmp_path)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_console_format_is_plain_text_for_a_pipe(tmp_path: Path) -> None:
    env = {"SLUICE_LOG_FORMAT": "console", "SLUICE_LOG_LEVEL": "debug"}
    with lite_stack(tmp_path, env) as stack:
        _calls(stack)
        lines = list(stack.processes["api"].lines)
    access = [line for line in lines if "sluice.access" in line and GET_KNOWLEDGE in line]
    assert access and "code=NOT_FOUND" in access[0] and "\x1b[" not in access[0]
    assert any("[debug    ]" in line for line in lines)
    assert not any(line.startswith("{") for line in lines)
