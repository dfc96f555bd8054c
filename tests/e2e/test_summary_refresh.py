"""The summary refresh end to end in lite and full mode against a real chat-completions server that
summarises the facts it is given: a document uploaded with the summary on is completed with
a summary of its fact; UpdateChunk with a new fact queues a refresh, and the summary
GetKnowledge returns (and its summary chunk, which Search finds) ends up saying the new
fact. RegenerateSummary, over the client, the CLI and the README's grpcurl command, writes
it again on demand; without a summary model it is FAILED_PRECONDITION."""

from __future__ import annotations

import io
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sluice_client import FailedPrecondition, SluiceClient
from sluice_client._proto.sluice import v1
from sluice_client.cli import main as cli

from tests.e2e.lifecycle_support import WAIT_S, done
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.e2e.test_readme_edits import run
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.processes import REPO

ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
OLD_FACT = "Fact: the Orvik ferry sails at 07:15."
NEW_FACT = "Fact: the Orvik ferry sails at 09:40."
KEYWORD = v1.SearchMode.KEYWORD


def summary_answer(request: ChatRequest) -> str:
    """The facts the model was given, as the summary: what reached it shows."""
    facts = re.findall(r"Fact: [^\n]*?\d\d:\d\d\.", request.texts[-1] if request.texts else "")
    return " ".join(["A timetable of the Orvik harbour.", *facts])


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"refresh-{request.param}"), extra_env=ENV) as running:
        yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    with ChatServer(answer=summary_answer) as server:
        yield server


def summarised(client: SluiceClient, chat: ChatServer | None) -> v1.Knowledge:
    summary = (
        v1.SummaryConfig(
            enabled=True,
            model=v1.ModelConfig(provider="openai", model="writer", base_url=chat.base_url),
        )
        if chat is not None
        else None
    )
    config = v1.KnowledgeBaseConfig(summary=summary)
    kb = client.create_knowledge_base(f"refresh-{uuid.uuid4().hex[:8]}", config=config)
    text = f"# Orvik harbour\n\nThe ferry timetable for the winter.\n\n{OLD_FACT}\n"
    upload = client.upload_file(kb.id, io.BytesIO(text.encode()), file_name="ferry.md")
    return done(client, upload.id)


def refreshed(client: SluiceClient, knowledge_id: str, words: str) -> v1.Knowledge:
    """The knowledge once its summary is completed and says ``words``."""
    deadline = time.monotonic() + WAIT_S
    while True:
        knowledge = client.get_knowledge(knowledge_id)
        if knowledge.summary_status == v1.SummaryStatus.COMPLETED and words in knowledge.summary:
            return knowledge
        assert knowledge.summary_status != v1.SummaryStatus.FAILED, knowledge.summary_error
        assert time.monotonic() < deadline, knowledge
        time.sleep(0.2)


def test_an_edited_chunk_gets_a_refreshed_summary_that_search_finds(
    client: SluiceClient, chat: ChatServer
) -> None:
    knowledge = summarised(client, chat)
    assert knowledge.summary_status == v1.SummaryStatus.COMPLETED
    assert OLD_FACT in knowledge.summary
    chunks = list(client.list_chunks(knowledge.id))
    [chunk] = [c for c in chunks if c.chunk_type == v1.ChunkType.TEXT and OLD_FACT in c.content]

    client.update_chunk(chunk.id, chunk.content.replace(OLD_FACT, NEW_FACT))
    after = refreshed(client, knowledge.id, NEW_FACT)

    assert OLD_FACT not in after.summary and not after.summary_stale
    assert NEW_FACT in chat.log()[-1].texts[-1]
    chunks = list(client.list_chunks(knowledge.id))
    [summary] = [c for c in chunks if c.chunk_type == v1.ChunkType.SUMMARY]
    assert summary.content == after.summary
    hits = client.search("ferry sails 09:40", [knowledge.knowledge_base_id], mode=KEYWORD)
    assert summary.id in [h.chunk_id for h in hits]


def test_regenerate_summary_from_the_client_the_cli_and_the_readme(
    client: SluiceClient,
    chat: ChatServer,
    stack: Stack,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    knowledge = summarised(client, chat)
    queued = client.regenerate_summary(knowledge.id)
    assert queued.summary_status in (v1.SummaryStatus.PENDING, v1.SummaryStatus.PROCESSING)
    refreshed(client, knowledge.id, OLD_FACT)
    assert len(chat.log()) == 2

    assert cli(["--target", stack.target, "regenerate-summary", knowledge.id]) == 0
    assert f'"id": "{knowledge.id}"' in capsys.readouterr().out
    refreshed(client, knowledge.id, OLD_FACT)

    readme = (REPO / "README.md").read_text().split("\n## Tags and edits\n", 1)[1]
    [command] = [
        line.strip() for line in readme.splitlines() if "KnowledgeService/RegenerateSummary" in line
    ]
    answer = run(command, stack.target, {"ID": knowledge.id}, tmp_path)
    assert answer["knowledge"]["id"] == knowledge.id
    refreshed(client, knowledge.id, OLD_FACT)
    deadline = time.monotonic() + WAIT_S
    while len(chat.log()) < 4:
        assert time.monotonic() < deadline
        time.sleep(0.1)

    bare = summarised(client, None)
    with pytest.raises(FailedPrecondition):
        client.regenerate_summary(bare.id)
