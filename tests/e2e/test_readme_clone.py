"""The README's grpcurl commands of "Cloning a knowledge base", read from the README and run
as written with the real grpcurl against a lite server (only the address is the test's):
a clone into a new knowledge base, its progress read and watched, and a sync into it."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from sluice_client import SluiceClient

from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import lite_stack
from tests.e2e.test_readme_edits import README_ADDRESS, run
from tests.support.grpcurl import grpcurl_binary
from tests.support.processes import REPO

NOTES = b"# Pumps\n\nReset the pump by holding the red button for five seconds.\n"


def readme_commands() -> list[str]:
    readme = (REPO / "README.md").read_text()
    section = readme.split("\n## Cloning a knowledge base\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", "", block)
    return [line.strip() for line in joined.splitlines() if line.startswith("grpcurl ")]


def _stream(command: str, target: str, env: dict[str, str], cwd: Path) -> list[Any]:
    """A server stream's messages: grpcurl prints one JSON object after another."""
    path = f"{Path(grpcurl_binary()).parent}{os.pathsep}{os.environ['PATH']}"
    ran = subprocess.run(
        ["bash", "-c", command.replace(README_ADDRESS, target)],
        cwd=cwd,
        env={**os.environ, "PATH": path, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, (command, ran.stderr)
    decoder, text, messages = json.JSONDecoder(), ran.stdout.strip(), []
    while text:
        message, end = decoder.raw_decode(text)
        messages.append(message)
        text = text[end:].strip()
    return messages


def test_the_readme_clone_commands_run_as_written(tmp_path: Path) -> None:
    commands = readme_commands()
    assert [re.findall(r"sluice\.v1\.\w+/(\w+)", c) for c in commands] == [
        ["CloneKnowledgeBase"],
        ["GetCloneProgress"],
        ["WatchCloneProgress"],
        ["CloneKnowledgeBase"],
    ]
    with lite_stack(tmp_path / "data") as stack, SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base("handbook")
        done(client, client.upload_file(kb.id, io.BytesIO(NOTES), file_name="notes.md").id)
        env = {"KB": kb.id}
        started = run(commands[0], stack.target, env, tmp_path)
        env.update(JOB=started["jobId"], TARGET=started["targetId"])
        assert client.get_knowledge_base(env["TARGET"]).name == "handbook-copy"
        progress = run(commands[1], stack.target, env, tmp_path)["progress"]
        assert progress["jobId"] == env["JOB"]
        watched = _stream(commands[2], stack.target, env, tmp_path)
        last = watched[-1]["progress"]
        assert last["status"] == "JOB_STATUS_COMPLETED", last
        assert (last["total"], last["added"]) == ("1", "1")
        synced = run(commands[3], stack.target, env, tmp_path)
        assert synced["targetId"] == env["TARGET"]
        assert client.wait_for_clone(synced["jobId"]).total == 0
        [clone] = list(client.list_knowledge(env["TARGET"]))
        assert clone.file_name == "notes.md"
