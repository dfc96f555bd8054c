"""Auto-tags and the knowledge base profile end to end in lite mode, against a real
chat-completions server: a knowledge base with summary, auto-tags and profile enabled and two
tags; an uploaded document completes, GetKnowledge shows the tag its summary model picked
and GetKnowledgeBase the profile written from its title and summary. The README's grpcurl
command queues the profile on demand; an unknown knowledge base is NOT_FOUND and one
without a summary model FAILED_PRECONDITION."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from sluice_client import FailedPrecondition, InvalidArgument, NotFound, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import Stack, lite_stack
from tests.support.grpcurl import grpcurl_binary
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.processes import REPO

SUMMARY = "Notes on servicing the pump room: bleeding valves and logging pressure."
PROFILE = "Maintenance notes for the pump room: valves, pressure checks and service logs."
NOTES = b"# Pump room\n\nBleed the valves monthly and log the pressure after each service.\n"
README_ADDRESS = "127.0.0.1:50051"
WAIT_S = 60.0
T = TypeVar("T")


def is_profile(request: ChatRequest) -> bool:
    return "describe a knowledge base" in request.texts[0]


def answer(request: ChatRequest) -> str:
    if is_profile(request):
        return PROFILE
    if request.schema is not None:  # the auto-tag pick: one existing tag, one made up
        return json.dumps({"tags": ["maintenance", "gardening"]})
    return SUMMARY


@pytest.fixture(scope="module")
def chat() -> Iterator[ChatServer]:
    with ChatServer(answer=answer) as server:
        yield server


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
    with lite_stack(tmp_path_factory.mktemp("auto-tags-profile"), extra_env=env) as s:
        yield s


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


def eventually(read: Callable[[], T], ok: Callable[[T], bool]) -> T:
    """``read()`` once ``ok`` says so (the auto-tags and the profile are not waited for by
    the document)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        value = read()
        if ok(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.2)


def profile_of(kb: v1.KnowledgeBase) -> v1.KnowledgeBaseProfile:
    """The profile every knowledge base reply carries (empty until one is written)."""
    assert kb.profile is not None
    return kb.profile


def config(chat: ChatServer, *, summary_model: bool = True) -> v1.KnowledgeBaseConfig:
    model = v1.ModelConfig(provider="openai", model="writer-1", base_url=chat.base_url)
    return v1.KnowledgeBaseConfig(
        summary=v1.SummaryConfig(enabled=True, model=model if summary_model else None),
        auto_tag=v1.AutoTagConfig(enabled=True),
        profile=v1.ProfileConfig(enabled=True),
    )


def readme_profile_command() -> str:
    """The README's grpcurl command of GenerateKnowledgeBaseProfile, continuation joined."""
    readme = re.sub(r"\\\n\s*", "", (REPO / "README.md").read_text())
    [command] = [
        line.strip()
        for line in readme.splitlines()
        if line.startswith("grpcurl ") and "/GenerateKnowledgeBaseProfile" in line
    ]
    return command


def test_a_document_gets_a_picked_tag_and_its_knowledge_base_a_profile(
    client: SluiceClient, chat: ChatServer
) -> None:
    kb = client.create_knowledge_base(f"pumps-{uuid.uuid4().hex[:8]}", config=config(chat))
    maintenance = client.create_tag(kb.id, "maintenance")
    client.create_tag(kb.id, "safety")
    upload = client.upload_file(kb.id, io.BytesIO(NOTES), file_name="pump-room.md")
    finished = done(client, upload.id)

    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    tagged = eventually(lambda: client.get_knowledge(upload.id), lambda k: bool(k.tag_ids))
    assert tagged.tag_ids == [maintenance.id], "the made-up tag was not created"
    assert [t.name for t in client.list_tags(kb.id)] == ["maintenance", "safety"]

    def asked_of(kb: v1.KnowledgeBase) -> list[str]:
        """What the profile requests of this knowledge base sent (its name leads them)."""
        return [r.texts[-1] for r in chat.log() if is_profile(r) and kb.name in r.texts[-1]]

    profiled = eventually(
        lambda: client.get_knowledge_base(kb.id),
        lambda b: profile_of(b).description == PROFILE and SUMMARY in asked_of(b)[-1],
    )
    assert profile_of(profiled).description == PROFILE
    assert profile_of(profiled).generated_at is not None
    last = asked_of(profiled)[-1]
    assert "pump-room" in last and SUMMARY in last, "written from its title and summary"
    spans = {s.name: s for s in client.get_spans(upload.id).spans}
    assert spans["postprocess.auto_tag"].status == v1.SpanStatus.DONE


def test_the_readme_command_queues_the_profile_on_demand(
    client: SluiceClient, chat: ChatServer, stack: Stack, tmp_path: Path
) -> None:
    kb = client.create_knowledge_base(f"empty-{uuid.uuid4().hex[:8]}", config=config(chat))
    path = f"{Path(grpcurl_binary()).parent}{os.pathsep}{os.environ['PATH']}"
    ran = subprocess.run(
        ["bash", "-c", readme_profile_command().replace(README_ADDRESS, stack.target)],
        cwd=tmp_path,
        env={**os.environ, "PATH": path, "KB": kb.id},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["jobId"].startswith(f"kb-profile-{kb.id}-")
    written = eventually(
        lambda: client.get_knowledge_base(kb.id),
        lambda b: profile_of(b).generated_at is not None,
    )
    assert profile_of(written).generated_at is not None
    assert profile_of(written).description == "", "no documents: an empty profile"


def test_the_rpc_refuses_unknown_and_modelless_knowledge_bases(
    client: SluiceClient, chat: ChatServer
) -> None:
    with pytest.raises(NotFound):
        client.generate_knowledge_base_profile(str(uuid.uuid4()))
    plain = client.create_knowledge_base(
        f"plain-{uuid.uuid4().hex[:8]}", config=config(chat, summary_model=False)
    )
    with pytest.raises(FailedPrecondition) as refused:
        client.generate_knowledge_base_profile(plain.id)
    assert "summary.model" in str(refused.value)


def test_max_tags_above_ten_is_refused(client: SluiceClient, chat: ChatServer) -> None:
    too_many = config(chat)
    assert too_many.auto_tag is not None
    too_many.auto_tag.max_tags = 11
    with pytest.raises(InvalidArgument) as refused:
        client.create_knowledge_base(f"many-{uuid.uuid4().hex[:8]}", config=too_many)
    assert "config.auto_tag.max_tags" in str(refused.value)
