"""Full-mode processes started in any order: the housekeeper waits for the schema the API
creates (no failed rounds, no tracebacks), and the API leaves no data directory behind."""

from __future__ import annotations

import json
from pathlib import Path

from storage.db.migrate import upgrade_to_head
from tests.e2e.stacks import full_stack
from tests.support.databases import REDIS_URL, postgres_database, redis_prefix
from tests.support.processes import Process, python


def test_the_housekeeper_waits_for_the_schema_before_its_first_round(tmp_path: Path) -> None:
    with postgres_database() as database_url, redis_prefix() as prefix:
        env = {
            "SLUICE_MODE": "full",
            "SLUICE_DATABASE_URL": database_url,
            "SLUICE_REDIS_URL": REDIS_URL,
            "SLUICE_KEY_PREFIX": prefix,
            "SLUICE_MILVUS_URI": str(tmp_path / "milvus.db"),
            "SLUICE_DOCREADER_ADDRESS": "127.0.0.1:9",
            "SLUICE_DATA_DIR": str(tmp_path / "data"),
        }
        housekeeper = Process("housekeeper", python("-m", "workers.housekeeping", "--once"), env)
        try:
            housekeeper.wait_for_line(
                r"waiting for the database: the database schema is at no migration", timeout=60
            )
            # What the API does when it starts.
            upgrade_to_head(database_url)
            assert housekeeper.proc.wait(120) == 0, "\n".join(housekeeper.lines)
        finally:
            housekeeper.stop()
    output = "\n".join(housekeeper.lines)
    assert "Traceback" not in output
    assert "round failed" not in output
    printed = [json.loads(line) for line in housekeeper.lines if line.startswith("{")]
    # The log records are JSON objects too (each has an "event"); the report is the other one.
    reports = [record for record in printed if "event" not in record]
    assert len(reports) == 1
    assert "skipped" not in reports[0]


def test_the_full_mode_api_creates_no_data_directory(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    extra_env = {"SLUICE_DATA_DIR": str(data_dir), "SLUICE_STORAGE_DIR": str(tmp_path / "files")}
    with full_stack(tmp_path / "stack", workers=0, extra_env=extra_env) as stack:
        assert "listening on" in "\n".join(stack.processes["api"].lines)
        assert not data_dir.exists()
        assert (tmp_path / "files").is_dir()
