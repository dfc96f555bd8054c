"""The README's grpcurl commands of "WikiService" (under "Wiki"), read from the README and
run as written with the real grpcurl against a lite server (only the address is the
test's), each answer checked against the pages written into the deployment's database; and
its CLI lines run through the CLI against the same pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from sluice_client import SluiceClient
from sluice_client.cli import main as cli

from tests.e2e.stacks import lite_stack
from tests.e2e.test_readme_edits import run
from tests.e2e.wiki_support import WRITTEN_AT, Contribution, deployment_database, write_page
from tests.support.processes import REPO

RULES = (
    "# Harbour rules\n\nBoats moor at the [East quay](wiki://east-quay) ([notes](knowledge://{}))."
)


def readme_blocks() -> list[str]:
    """The section's shell blocks, continuation lines joined."""
    readme = (REPO / "README.md").read_text()
    section = re.split(r"\n#+ WikiService\b.*\n", readme, maxsplit=1)[1]
    section = re.split(r"\n#{2,6} ", section, maxsplit=1)[0]  # the next heading (not a # comment)
    blocks = [part.split("```", 1)[0] for part in section.split("```sh\n")[1:]]
    return [re.sub(r"\\\n\s*", "", block) for block in blocks]


def test_the_readme_wiki_commands_run_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    grpcurl_block, cli_block = readme_blocks()
    commands = [line.strip() for line in grpcurl_block.splitlines() if line.startswith("grpcurl ")]
    methods = [re.findall(r"sluice\.v1\.(\w+/\w+)", command) for command in commands]
    assert [name for [name] in methods] == [
        "WikiService/ListWikiPages",
        "WikiService/GetWikiPage",
        "WikiService/GetWikiPage",
    ]
    with lite_stack(tmp_path / "data") as stack, SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base("harbour")
        notes = client.create_manual(kb.id, "Harbour notes", "# Notes", publish=False)
        with deployment_database(stack) as db:
            pages = {
                slug: write_page(
                    db,
                    tenant_id=kb.tenant_id,
                    knowledge_base_id=kb.id,
                    slug=slug,
                    title=title,
                    content=content,
                    sources=[Contribution(notes.id, 1, WRITTEN_AT)],
                )
                for slug, title, content in (
                    ("harbour-rules", "Harbour rules", RULES.format(notes.id)),
                    ("east-quay", "East quay", "# East quay\n"),
                )
            }
        env = {"KB": kb.id, "PAGE": pages["east-quay"].id}
        answers: list[Any] = [run(command, stack.target, env, tmp_path) for command in commands]
        listed, by_slug, by_id = answers

        assert [(p["slug"], p["title"], p["sourceCount"]) for p in listed["pages"]] == [
            ("east-quay", "East quay", 1)
        ]
        assert listed["total"] == "1"  # int64: a string in JSON
        rules = by_slug["page"]
        assert rules["id"] == pages["harbour-rules"].id
        assert rules["content"] == RULES.format(notes.id)
        assert rules["sources"] == [
            {
                "knowledgeId": notes.id,
                "title": "Harbour notes",
                "attempt": 1,
                "ingestedAt": "2026-11-30T09:00:00Z",
            }
        ]
        assert rules["links"] == [
            {"slug": "east-quay", "pageId": pages["east-quay"].id, "title": "East quay"}
        ]
        assert (by_id["page"]["slug"], by_id["page"]["version"]) == ("east-quay", 1)

        # The CLI lines, with the README's placeholders filled in.
        filled = {"<KB_ID>": kb.id, "<PAGE_ID>": pages["east-quay"].id}
        for line in cli_block.splitlines():
            argv = line.split("#", 1)[0].split()[1:]
            argv = [filled.get(arg, arg) for arg in argv]
            assert cli(["--target", stack.target, *argv]) == 0
        listed_line, *shown = capsys.readouterr().out.splitlines()
        assert listed_line.startswith("east-quay  East quay  v1  1 source  ")
        assert shown[0].startswith("Harbour rules (harbour-rules, version 1, updated ")
        assert '"slug": "east-quay"' in "\n".join(shown)
