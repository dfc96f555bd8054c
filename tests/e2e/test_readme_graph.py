"""The README's grpcurl commands of "Knowledge graph", read from the README and run as
written with the real grpcurl against a lite server (only the address is the test's) over a
graph two documents built, each answer checked."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from sluice_client import SluiceClient

from tests.e2e.graph_support import stack_database, write_graph
from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import lite_stack
from tests.e2e.test_readme_edits import run
from tests.support.processes import REPO

PUMPS = b"# Pumps\n\nThe Acme pump feeds the north valve of the harbour basin.\n"
ROTA = b"# Rota\n\nJane Roe inspects the Acme pump on Mondays.\n"


def readme_commands() -> list[str]:
    """The grpcurl commands of the section's first shell block, continuation lines joined."""
    readme = (REPO / "README.md").read_text()
    section = readme.split("\n## Knowledge graph\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", "", block)
    return [line.strip() for line in joined.splitlines() if line.startswith("grpcurl ")]


def _document(client: SluiceClient, kb_id: str, name: str, body: bytes) -> tuple[str, str]:
    knowledge = client.upload_file(kb_id, io.BytesIO(body), file_name=name)
    done(client, knowledge.id)
    [chunk] = client.list_chunks(knowledge.id)
    return knowledge.id, chunk.id


def test_the_readme_graph_commands_run_as_written(tmp_path: Path) -> None:
    commands = readme_commands()
    assert [re.findall(r"sluice\.v1\.\w+/(\w+)", c) for c in commands] == [
        ["ListEntities"],
        ["GetNeighbourhood"],
        ["GetRelationSources"],
        ["Search"],
    ]
    with lite_stack(tmp_path / "data") as stack, SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base("harbour")
        pumps, pumps_chunk = _document(client, kb.id, "pumps.md", PUMPS)
        rota, rota_chunk = _document(client, kb.id, "rota.md", ROTA)
        with stack_database(stack) as db:
            write_graph(
                db,
                pumps,
                {
                    pumps_chunk: (
                        [("Acme pump", "DEVICE"), ("north valve", "DEVICE")],
                        [("Acme pump", "feeds", "north valve")],
                    )
                },
            )
            write_graph(
                db,
                rota,
                {
                    rota_chunk: (
                        [("Jane Roe", "PERSON"), ("Acme pump", "DEVICE")],
                        [("Jane Roe", "inspects", "Acme pump")],
                    )
                },
            )
        env = {"KB": kb.id}
        answers: list[Any] = []
        for command in commands:
            answers.append(run(command, stack.target, env, tmp_path))
            if len(answers) == 1:
                env["ENTITY"] = answers[0]["entities"][0]["id"]
            if len(answers) == 2:
                feeds = next(r for r in answers[1]["relations"] if r["relation"] == "feeds")
                env["RELATION"] = feeds["id"]
    listed, around, sources, search = answers

    [pump] = listed["entities"]
    assert (pump["name"], pump["chunkCount"], pump["knowledgeCount"], listed["total"]) == (
        "Acme pump",
        2,
        2,
        "1",
    )
    assert around["center"]["id"] == pump["id"]
    assert sorted(e["name"] for e in around["entities"]) == ["Jane Roe", "north valve"]
    [source] = sources["sources"]
    assert (source["chunkId"], source["knowledgeTitle"]) == (pumps_chunk, "pumps.md")
    assert "north valve" in source["content"]
    hit, added = search["results"]
    assert hit["chunkId"] == pumps_chunk and "graphMatch" not in hit
    assert added["chunkId"] == rota_chunk
    assert [e["name"] for e in added["graphMatch"]["entities"]] == ["Acme pump"]
