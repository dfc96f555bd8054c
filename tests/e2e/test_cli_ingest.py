"""`sluice ingest DIR`, `sluice watch` and the CLI's exit codes, against the lite stack
(real API server, real processing).

The folder holds nested documents, an unsupported file, a duplicate of a knowledge the
base already has and a document that fails (whitespace only): the summary sorts them into
completed / failed / skipped with reasons and the exit code is 1; a rerun recognises what
was ingested and uploads nothing again.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1
from sluice_client.cli import main as cli

from tests.e2e.stacks import Stack, lite_stack
from tests.support.processes import free_port

GUIDE = "# Pump guide\n\nHold the red button for ten seconds to reset the pump.\n"
NOTES = "Harbour notes: boats moor at the east quay after the evening bell rings.\n"
SHARED = "Shared text: the lighthouse keeper logs every ship that passes the point.\n"
# The console script pip installed next to the interpreter running the tests.
SLUICE = Path(sys.executable).parent / "sluice"
# A file name that is Rich markup too: shown as "ab.md" if not escaped.
MARKUP_NAME = "a[red]b.md"
# What a terminal draws besides the text: colours, cursor moves.
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with lite_stack(tmp_path_factory.mktemp("cli-ingest-lite")) as running:
        yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as connected:
        yield connected


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ingest state files of each test in its own cache folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _folder(root: Path) -> Path:
    folder = root / "docs"
    (folder / "nested" / "deep").mkdir(parents=True)
    (folder / "drafts").mkdir()
    (folder / "guide.md").write_text(GUIDE)
    (folder / "nested" / "deep" / "notes.txt").write_text(NOTES)
    (folder / "nested" / "shared.md").write_text(SHARED)
    (folder / "blank.txt").write_text(" \n\t\n")
    (folder / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    (folder / "drafts" / "todo.md").write_text("not yet\n")
    (folder / "gone.md").symlink_to(folder / "moved-away.md")  # listed, but cannot be read
    return folder


def _names(client: SluiceClient, kb_id: str) -> list[str]:
    return sorted(k.file_name for k in client.list_knowledge(kb_id))


def test_ingest_sorts_a_folder_into_completed_failed_and_skipped_and_a_rerun_resumes(
    stack: Stack, client: SluiceClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = client.create_knowledge_base(f"ingest-{uuid.uuid4().hex[:8]}")
    existing = client.upload_file(kb.id, _shared_copy(tmp_path))
    folder = _folder(tmp_path)
    target = ["--target", stack.target]

    options = ["--json", "--concurrency", "3", "--exclude", "drafts/*"]
    code = cli([*target, "ingest", kb.id, str(folder), *options])

    summary = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [r["path"] for r in summary["completed"]] == ["guide.md", "nested/deep/notes.txt"]
    assert [(r["path"], r["reason"]) for r in summary["skipped"]] == [
        ("clip.mp4", "unsupported type .mp4"),
        ("nested/shared.md", "duplicate"),
    ]
    assert summary["skipped"][1]["knowledge_id"] == existing.id
    [blank, gone] = summary["failed"]
    assert blank["path"] == "blank.txt" and "empty document" in blank["reason"]
    assert (gone["path"], gone["reason"]) == ("gone.md", "No such file or directory")
    uploaded = _names(client, kb.id)
    assert uploaded == ["blank.txt", "guide.md", "notes.txt", "shared-copy.md"]
    completed = {r["knowledge_id"] for r in summary["completed"]}
    assert {k.id for k in client.list_knowledge(kb.id, statuses=[v1.ParseStatus.COMPLETED])} >= (
        completed
    )

    # The rerun (plain output, not a terminal) uploads nothing it already ingested.
    excluded = ["--exclude", "drafts/*", "--exclude", "blank.txt", "--exclude", "gone.md"]
    rerun = cli([*target, "ingest", kb.id, str(folder), *excluded])

    out = capsys.readouterr().out
    assert rerun == 0
    assert _names(client, kb.id) == uploaded
    assert "skipped guide.md: already ingested" in out.splitlines()
    assert "skipped nested/deep/notes.txt: already ingested" in out.splitlines()
    assert "uploaded" not in out
    assert out.splitlines()[-1] == "0 completed, 0 failed, 4 skipped"


def test_a_rerun_processes_again_what_an_interrupted_run_cancelled(
    stack: Stack, client: SluiceClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What a Ctrl-C leaves on the server: the file uploaded, its processing cancelled (a
    # cancelled row still counts as a duplicate, so a plain re-upload would be refused).
    kb = client.create_knowledge_base(f"cancelled-{uuid.uuid4().hex[:8]}")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text(GUIDE)
    uploaded = client.upload_file(kb.id, folder / "guide.md")
    cancelled = client.cancel_parse(uploaded.id)
    assert cancelled.parse_status == v1.ParseStatus.CANCELLED

    code = cli(["--target", stack.target, "--json", "ingest", kb.id, str(folder)])

    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    assert summary["completed"] == [{"path": "guide.md", "knowledge_id": uploaded.id, "reason": ""}]
    assert [k.id for k in client.list_knowledge(kb.id)] == [uploaded.id]
    assert client.get_knowledge(uploaded.id).parse_status == v1.ParseStatus.COMPLETED


def _shared_copy(root: Path) -> Path:
    copy = root / "shared-copy.md"
    copy.write_text(SHARED)
    return copy


def test_watch_exits_by_outcome_with_json_lines(
    stack: Stack, client: SluiceClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = client.create_knowledge_base(f"watch-{uuid.uuid4().hex[:8]}")
    good = tmp_path / "good.md"
    good.write_text(GUIDE)
    blank = tmp_path / "blank.txt"
    blank.write_text("   \n")
    target = ["--target", stack.target]

    assert cli([*target, "watch", client.upload_file(kb.id, good).id, "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[-1]["parseStatus"] == "PARSE_STATUS_COMPLETED"
    assert lines[-2]["type"] == "WATCH_EVENT_TYPE_END"

    assert cli([*target, "--json", "watch", client.upload_file(kb.id, blank).id]) == 1
    final = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert final["parseStatus"] == "PARSE_STATUS_FAILED"

    assert cli([*target, "watch", str(uuid.uuid4())]) == 4
    assert capsys.readouterr().err.startswith("error: NOT_FOUND: ")


def test_a_server_that_is_down_is_named_and_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    down = f"127.0.0.1:{free_port()}"

    code = cli(["--target", down, "ingest", "kb-1", str(_folder(tmp_path))])

    err = capsys.readouterr().err
    assert code == 3
    assert err.startswith(f"error: UNAVAILABLE: the Sluice server at {down} ")
    assert len(err.splitlines()) == 1


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["ingest", "kb-1", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Invalid value for 'DIR': ") and "does not exist" in err
    assert len(err.splitlines()) == 1
    assert cli(["ingest", "kb-1", str(tmp_path), "--concurrency", "0"]) == 2
    assert cli(["no-such-command"]) == 2


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["--version"]) == 0
    assert capsys.readouterr().out == f"sluice {metadata.version('sluice')}\n"


def test_a_closed_pipe_ends_the_command_quietly(
    stack: Stack, client: SluiceClient, tmp_path: Path
) -> None:
    """`sluice fetch TOKEN | head -c 10`: no traceback when head stops reading."""
    kb = client.create_knowledge_base(f"pipe-{uuid.uuid4().hex[:8]}")
    big = tmp_path / "big.txt"
    big.write_text("All hands to the pump room.\n" * 100_000)  # 2.8 MB, past any pipe buffer
    token = client.create_access_grant(knowledge_id=client.upload_file(kb.id, big).id).token

    # "--": a token is base64url and may start with "-".
    pipeline = f"'{SLUICE}' --target {stack.target} fetch -- {token} | head -c 10"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", pipeline], capture_output=True, timeout=60
    )

    assert done.stdout == b"All hands "
    assert done.stderr == b""
    assert done.returncode == 141


def test_ingest_into_a_closed_pipe_ends_quietly_with_141(
    stack: Stack, client: SluiceClient, tmp_path: Path, cache_home: Path
) -> None:
    """`sluice ingest KB DIR | head -1`: Rich's console sees the closed pipe, not print()."""
    kb = client.create_knowledge_base(f"ingest-pipe-{uuid.uuid4().hex[:8]}")
    folder = tmp_path / "docs"
    folder.mkdir()
    for number in range(3):
        (folder / f"doc-{number}.md").write_text(f"Document {number}: {GUIDE}")
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}

    pipeline = f"'{SLUICE}' --target {stack.target} ingest {kb.id} '{folder}' | head -1"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", pipeline], capture_output=True, timeout=120, env=env
    )

    assert done.stdout == b"ingesting 3 files\n"
    assert done.stderr == b""
    assert done.returncode == 141


def test_a_file_name_that_looks_like_markup_is_shown_as_it_is(
    stack: Stack, client: SluiceClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = client.create_knowledge_base(f"markup-{uuid.uuid4().hex[:8]}")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / MARKUP_NAME).write_text(GUIDE)

    assert cli(["--target", stack.target, "ingest", kb.id, str(folder)]) == 0

    out = capsys.readouterr().out.splitlines()
    assert f"completed {MARKUP_NAME}" in out  # the plain progress line
    [row] = [line for line in out if line.startswith("│ a")]  # the summary table's
    assert row.split()[1] == MARKUP_NAME


def _on_a_terminal(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Runs the installed `sluice` with its stdout and stderr on a pseudo-terminal, as a
    user's shell would; (exit code, everything it drew)."""
    main_end, child_end = pty.openpty()
    with subprocess.Popen(
        [str(SLUICE), *argv], stdout=child_end, stderr=child_end, env=env
    ) as process:
        os.close(child_end)
        drawn = bytearray()
        while True:
            try:
                piece = os.read(main_end, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not piece:
                break
            drawn += piece
        code = process.wait(timeout=60)
    os.close(main_end)
    return code, drawn.decode(errors="replace")


def test_on_a_terminal_ingest_draws_bars_and_watch_draws_the_span_tree(
    stack: Stack, client: SluiceClient, tmp_path: Path, cache_home: Path
) -> None:
    kb = client.create_knowledge_base(f"tty-{uuid.uuid4().hex[:8]}")
    folder = tmp_path / "docs"
    (folder / "nested").mkdir(parents=True)
    (folder / "guide.md").write_text(GUIDE)
    (folder / "nested" / "notes.txt").write_text(NOTES)
    (folder / MARKUP_NAME).write_text(SHARED)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home), "COLUMNS": "120"}

    code, drawn = _on_a_terminal(["--target", stack.target, "ingest", kb.id, str(folder)], env)

    assert code == 0, drawn
    text = ANSI.sub("", drawn)
    assert "all files" in text  # the overall bar
    assert "━" in text  # Rich's bar glyph: bars, not plain lines
    assert "/5" in text  # a document's bar: its stages done of the round's five
    assert f"completed {MARKUP_NAME}" in text  # the line of a finished document
    assert f"│ {MARKUP_NAME} " in text  # its row in the summary table
    assert "3 completed, 0 failed, 0 skipped" in text
    [knowledge, *_] = client.list_knowledge(kb.id)

    code, drawn = _on_a_terminal(["--target", stack.target, "watch", knowledge.id], env)

    assert code == 0, drawn
    assert "attempt 1" in drawn and "└──" in drawn  # the tree
    assert "status: completed" in drawn
