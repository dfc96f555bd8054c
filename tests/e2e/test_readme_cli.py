"""The README's grpcurl quickstart ("Ingest and search with grpcurl"), its `sluice` CLI lines
("The Python client and the `sluice` CLI", its folder ingest) and its lite-mode metrics and
log lines ("Observability"), read from the README and run as written against a real lite
server (only the address, the port and the ids are the test's)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from sluice_client import SluiceClient

from tests.e2e.stacks import lite_stack
from tests.e2e.test_readme_clone import _stream
from tests.e2e.test_readme_edits import run
from tests.support.metrics_scrape import scrape
from tests.support.processes import REPO, Process, free_port

# The console scripts pip installed next to the interpreter running the tests.
BIN = Path(sys.executable).parent
README = (REPO / "README.md").read_text()
# The two import-url lines fetch from example.org: the test has no internet, and the SSRF
# policy refuses a loopback server in its place (both are covered by test_url_import*).
NEEDS_THE_INTERNET = "import-url"


def _section(title: str) -> str:
    return README.split(f"\n{title}\n", 1)[1].split("\n## ", 1)[0]


def _sh_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)


def _lines(block: str, start: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", "", block)
    return [line.strip() for line in joined.splitlines() if line.startswith(start)]


def cli_commands() -> list[str]:
    blocks = _sh_blocks(_section("## The Python client and the `sluice` CLI"))
    return [line for block in blocks[:2] for line in _lines(block, ".venv/bin/sluice ")]


def _handbook(root: Path) -> None:
    (root / "handbook" / "drafts").mkdir(parents=True)
    (root / "handbook" / "guide.md").write_text("# Pump\n\nHold the red button to reset it.\n")
    (root / "handbook" / "valves.txt").write_text("Valves open clockwise on the north pump.\n")
    (root / "handbook" / "drafts" / "todo.md").write_text("not yet\n")
    (root / "notes.md").write_text("Harbour notes: the pump room is behind the east quay.\n")


def _sluice(command: str, target: str, ids: dict[str, str], cwd: Path) -> str:
    for placeholder, value in ids.items():
        command = command.replace(placeholder, value)
    ran = subprocess.run(
        ["bash", "-c", command.replace(".venv/bin/sluice", str(BIN / "sluice"))],
        cwd=cwd,
        env={**os.environ, "SLUICE_TARGET": target, "XDG_CACHE_HOME": str(cwd / "cache")},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert ran.returncode == 0, (command, ran.stdout, ran.stderr)
    return ran.stdout


def test_the_readme_cli_commands_run_as_written(tmp_path: Path) -> None:
    commands = cli_commands()
    assert [c.split()[1] for c in commands] == [
        "kb",
        "ingest",
        "upload",
        "watch",
        "import-url",
        "import-url",
        "search",
        "get",
        "list",
        "--version",
        "ingest",
    ]
    _handbook(tmp_path)
    with lite_stack(tmp_path / "data") as stack, SluiceClient(stack.target) as client:
        kb_id = json.loads(_sluice(commands[0], stack.target, {}, tmp_path))["id"]
        ids = {"<KB_ID>": kb_id}
        whole = _sluice(commands[1], stack.target, ids, tmp_path)
        assert whole.splitlines()[-1] == "3 completed, 0 failed, 0 skipped"
        watched = _sluice(commands[2], stack.target, ids, tmp_path)
        assert watched.splitlines()[-1] == "status: completed"
        [notes] = [k for k in client.list_knowledge(kb_id) if k.file_name == "notes.md"]
        ids["<KNOWLEDGE_ID>"] = notes.id
        assert _sluice(commands[3], stack.target, ids, tmp_path).endswith("status: completed\n")
        ran = [c for c in commands[6:] if NEEDS_THE_INTERNET not in c]
        hits = _sluice(ran[0], stack.target, ids, tmp_path)
        assert "guide.md" in hits
        assert json.loads(_sluice(ran[1], stack.target, ids, tmp_path))["id"] == notes.id
        listed = _sluice(ran[2], stack.target, ids, tmp_path).splitlines()
        assert len(listed) == 4
        assert _sluice(ran[3], stack.target, ids, tmp_path).startswith("sluice ")
        # The folder again with the globs: the .md outside drafts/ was ingested already.
        globbed = _sluice(ran[4], stack.target, ids, tmp_path).splitlines()
        assert "skipped guide.md: already ingested" in globbed
        assert globbed[-1] == "0 completed, 0 failed, 1 skipped"


def test_the_readme_metrics_and_log_lines_hold_for_a_lite_server(tmp_path: Path) -> None:
    [lite_line] = [
        line
        for block in _sh_blocks(_section("## Observability: metrics"))
        for line in block.splitlines()
        if line.startswith("SLUICE_METRICS_PORT=9464 ")
    ]
    command, comment = lite_line.split("#", 1)
    assert comment.strip() == "lite: curl 127.0.0.1:9464/metrics"
    port, api = free_port(), free_port()
    env = {
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "SLUICE_DATA_DIR": str(tmp_path / "data"),
        "SLUICE_API_ADDRESS": f"127.0.0.1:{api}",
    }
    server = Process("lite", ["bash", "-c", command.replace("9464", str(port))], env)
    try:
        server.wait_for_line(r"listening on", timeout=120)
        with SluiceClient(f"127.0.0.1:{api}") as client:
            client.create_knowledge_base("handbook")
        metrics = scrape(port)
        labels = {"server": "api", "method": "CreateKnowledgeBase", "code": "OK"}
        assert metrics.value("sluice_rpc_requests_total", **labels) == 1
        assert {"sluice_documents", "sluice_queue_depth"} <= metrics.names()
    finally:
        server.stop()
    # "Logs": one JSON object a line, and an access record of the call with the example's keys.
    records = [json.loads(line) for line in server.lines if line.startswith("{")]
    assert records and all({"event", "level", "logger", "timestamp"} <= r.keys() for r in records)
    [access] = [r for r in records if r.get("method", "").endswith("/CreateKnowledgeBase")]
    example = json.loads(_section("### Logs").split("```json\n", 1)[1].split("```", 1)[0])
    assert access.keys() == example.keys() - {"trace_id", "span_id"}  # no OTLP endpoint set
    assert (access["logger"], access["event"], access["code"]) == ("sluice.access", "rpc", "OK")


def test_a_log_level_that_does_not_exist_stops_the_server_with_the_readme_line(
    tmp_path: Path,
) -> None:
    expected = re.findall(r"`(sluice-server: SLUICE_LOG_LEVEL must be [^`]*)`", README)
    ran = subprocess.run(
        [str(BIN / "sluice-server")],
        env={
            **os.environ,
            "SLUICE_LOG_LEVEL": "VERBOSE",
            "SLUICE_DATA_DIR": str(tmp_path / "data"),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 2
    assert ran.stderr.strip().splitlines() == expected


def quickstart_commands() -> list[str]:
    """The first grpcurl block's commands, one per paragraph (a heredoc stays with its
    command; comments and `NAME=...` placeholder lines left out)."""
    block = _sh_blocks(_section("## Ingest and search with grpcurl"))[0]
    paragraphs = [
        "\n".join(
            line
            for line in paragraph.splitlines()
            if not line.startswith("#") and not re.match(r"\w+=\.\.\.", line)
        )
        for paragraph in block.split("\n\n")
    ]
    return [paragraph for paragraph in paragraphs if paragraph.startswith("grpcurl ")]


def test_the_readme_grpcurl_quickstart_runs_as_written(tmp_path: Path) -> None:
    commands = quickstart_commands()
    assert [re.findall(r"sluice\.v1\.\w+/(\w+)", c) for c in commands] == [
        ["CreateKnowledgeBase"],
        ["CreateFromFile"],
        ["CreateFromURL"],  # example.org: not run (no internet, loopback refused by SSRF)
        ["WatchSpans"],
        ["Search"],
    ]
    (tmp_path / "notes.md").write_text("# Pump\n\nHold the red button to reset the pump.\n")
    with lite_stack(tmp_path / "data") as stack:
        env = {"KB": run(commands[0], stack.target, {}, tmp_path)["knowledgeBase"]["id"]}
        env["ID"] = run(commands[1], stack.target, env, tmp_path)["knowledge"]["id"]
        events = _stream(commands[3], stack.target, env, tmp_path)
        assert events[-1]["type"] == "WATCH_EVENT_TYPE_END"
        assert events[-1]["parseStatus"] == "PARSE_STATUS_COMPLETED"
        [hit] = run(commands[4], stack.target, env, tmp_path)["results"]
        assert (hit["knowledgeId"], hit["knowledgeTitle"]) == (env["ID"], "notes.md")
