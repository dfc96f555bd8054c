"""The README's grpcurl commands of "Tags and edits", read from the README and run as written
with the real grpcurl against a lite server (only the address is the test's), each answer
checked, and what they did checked through the Python client."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import lite_stack
from tests.support.grpcurl import grpcurl_binary
from tests.support.processes import REPO

README_ADDRESS = "127.0.0.1:50051"
NOTES = b"# Pumps\n\nTo reset the pump, hold the red button for five seconds.\n"


def readme_commands() -> list[str]:
    """The grpcurl commands of the section's first shell block, continuation lines joined
    (comments and `NAME=...` placeholder lines left out)."""
    readme = (REPO / "README.md").read_text()
    section = readme.split("\n## Tags and edits\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", "", block)
    return [line.strip() for line in joined.splitlines() if line.startswith("grpcurl ")]


def run(command: str, target: str, env: dict[str, str], cwd: Path) -> Any:
    path = f"{Path(grpcurl_binary()).parent}{os.pathsep}{os.environ['PATH']}"
    done_ = subprocess.run(
        ["bash", "-c", command.replace(README_ADDRESS, target)],
        cwd=cwd,
        env={**os.environ, "PATH": path, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done_.returncode == 0, (command, done_.stderr)
    return json.loads(done_.stdout)


def test_the_readme_tag_and_edit_commands_run_as_written(tmp_path: Path) -> None:
    commands = readme_commands()
    methods = [re.findall(r"sluice\.v1\.\w+/(\w+)", command) for command in commands]
    assert [name for [name] in methods] == [
        "CreateTag",
        "ListTags",
        "RenameTag",
        "SetKnowledgeTags",
        "DeleteTag",
        "UpdateKnowledgeMetadata",
        "UpdateChunk",
        "SetChunkEnabled",
    ]
    with lite_stack(tmp_path / "data") as stack, SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base("handbook")
        knowledge = client.upload_file(kb.id, io.BytesIO(NOTES), file_name="notes.md")
        done(client, knowledge.id)
        [chunk] = client.list_chunks(knowledge.id)
        env = {"KB": kb.id, "ID": knowledge.id, "CHUNK": chunk.id}
        answers: list[Any] = []
        for command in commands:
            answers.append(run(command, stack.target, env, tmp_path))
            if len(answers) == 1:
                env["TAG"] = answers[0]["tag"]["id"]
                assert answers[0]["tag"]["color"] == "#f5a623"
            if "SetKnowledgeTags" in command:
                assert answers[-1]["knowledge"]["tagIds"] == [env["TAG"]]
        created, listed, renamed, tagged, deleted, metadata, edited, disabled = answers

        assert [t["name"] for t in listed["tags"]] == ["pumps"]
        assert renamed["tag"]["name"] == "pump room"
        assert tagged["knowledge"]["id"] == knowledge.id
        assert deleted == {"unlinked": 1}
        assert client.get_knowledge(knowledge.id).tag_ids == []
        assert list(client.list_tags(kb.id)) == []
        assert metadata["knowledge"]["metadata"] == {"owner": "ops"}
        assert edited["chunk"]["content"] == "Hold the red button for ten seconds."
        assert "isEnabled" not in disabled["chunk"]  # false: left out of grpcurl's JSON
        [after] = client.list_chunks(knowledge.id)
        assert (after.content, after.is_enabled) == (edited["chunk"]["content"], False)
        hits = client.search("red button", [kb.id], mode=v1.SearchMode.KEYWORD)
        assert hits == []
        assert created["tag"]["knowledgeBaseId"] == kb.id
