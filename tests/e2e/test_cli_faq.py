"""`sluice kb create --type faq`, `sluice faq-import --wait` and `sluice faq list` against
the lite stack: the import prints one line per change of the job (the watch's first
message, the job as the import's answer showed it, is not printed twice) and exits 0 once
the job completed, its failed rows counted in the last line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sluice_client.cli import main as cli

from tests.e2e.stacks import lite_stack


def _csv(path: Path, rows: list[tuple[str, str]]) -> Path:
    lines = ["question,answers", *(f"{question},{answer}" for question, answer in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_faq_import_followed_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with lite_stack(tmp_path / "lite") as stack:
        target = ["--target", stack.target]
        assert cli([*target, "kb", "create", "desk", "--type", "faq", "--json"]) == 0
        kb = json.loads(capsys.readouterr().out)
        assert kb["type"] == "KNOWLEDGE_BASE_TYPE_FAQ"

        rows = [("Is parking free?", "Yes"), ("When do you open?", "At nine"), ("Wifi?", "Ask")]
        file = _csv(tmp_path / "faq.csv", rows)
        assert cli([*target, "faq-import", kb["id"], str(file), "--wait"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert len(lines) == len(set(lines)), lines
        job_id = lines[0].split()[0]
        assert lines[-1].startswith(f"{job_id}  completed  3/3  succeeded 3  failed 0")

        assert cli([*target, "faq", "list", kb["id"], "--json"]) == 0
        listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        questions = sorted(e["content"]["standardQuestion"] for e in listed)
        assert questions == sorted(question for question, _ in rows)

        # A row without an answer fails, but the job completes: exit 0, the failure counted.
        bad = _csv(tmp_path / "bad.csv", [("Only a question?", "")])
        assert cli([*target, "faq-import", kb["id"], str(bad), "--wait"]) == 0
        last = capsys.readouterr().out.splitlines()[-1]
        assert "completed  1/1  succeeded 0  failed 1" in last
