"""Graph extraction end to end in lite mode against a real chat-completions server: a
knowledge base with the graph on and typed extraction, set over gRPC, a Markdown upload of
two sections. Each section is one graph subtask: the model is asked in structured output
whose schema holds the configured types, the round goes through finalizing and completes,
and each step span says what it found and what it dropped. An upload with the graph off
plans none; a cancel during the extraction leaves no graph."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S, done
from tests.e2e.stacks import Stack, lite_stack
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.waiting import wait_until

# The chat server lets the test's own requests in (the SSRF rules refuse loopback).
ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
SECTIONS = {
    "crane": "Ada Lovelace runs the crane of Varnholt Harbour every morning.",
    "trade": "Osk Trading ships its salt through Varnholt Harbour to the mainland.",
}
ENTITY_TYPES = ["person", "organization"]
RELATION_TYPES = ["works_for", "ships_through"]


def extraction(request: ChatRequest) -> str:
    """The section's entities and relation, and one entity of a type not configured."""
    passage = request.texts[-1]
    if SECTIONS["crane"] in passage:
        names, relation = [("Ada Lovelace", "person")], ("Ada Lovelace", "works_for")
    else:
        names, relation = [("Osk Trading", "organization")], ("Osk Trading", "ships_through")
    names += [("Varnholt Harbour", "organization"), ("salt", "commodity")]
    return json.dumps(
        {
            "entities": [{"name": n, "type": t, "description": ""} for n, t in names],
            "relations": [
                {
                    "source": relation[0],
                    "target": "Varnholt Harbour",
                    "relation": relation[1],
                    "description": "",
                }
            ],
        }
    )


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with lite_stack(tmp_path_factory.mktemp("graph-lite"), extra_env=ENV) as s:
        yield s


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


def document(path: Path) -> Path:
    parts = ["# Harbour notes", ""]
    for topic, text in SECTIONS.items():
        parts += [f"## {topic.title()}", "", text, ""]
    path.write_text("\n".join(parts))
    return path


def graph_config(chat: ChatServer) -> v1.KnowledgeBaseConfig:
    return v1.KnowledgeBaseConfig(
        chunking=v1.ChunkingConfig(chunk_size=120, chunk_overlap=0),
        indexing=v1.IndexingStrategy(vector_enabled=True, keyword_enabled=True, graph_enabled=True),
        extract=v1.ExtractConfig(
            enabled=True,
            entity_types=ENTITY_TYPES,
            relation_types=RELATION_TYPES,
            model=v1.ModelConfig(provider="openai", model="extractor", base_url=chat.base_url),
        ),
    )


def graph_steps(client: SluiceClient, knowledge_id: str) -> dict[str, Any]:
    return {
        s.name: s
        for s in client.get_spans(knowledge_id).spans
        if s.name.startswith("postprocess.graph.")
    }


def test_each_section_is_extracted_with_the_configured_types(
    client: SluiceClient, tmp_path: Path
) -> None:
    with ChatServer(answer=extraction) as chat:
        kb = client.create_knowledge_base(
            f"graph-{uuid.uuid4().hex[:8]}", config=graph_config(chat)
        )
        upload = client.upload_file(kb.id, document(tmp_path / "notes.md"))
        finished = done(client, upload.id)
        asked = chat.log()

    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    assert finished.pending_subtasks_count == 0
    assert len(asked) == 2, "one call per section"
    for request in asked:
        assert request.schema is not None
        entities = request.schema["properties"]["entities"]["items"]["properties"]
        relations = request.schema["properties"]["relations"]["items"]["properties"]
        assert entities["type"]["enum"] == ENTITY_TYPES
        assert relations["relation"]["enum"] == RELATION_TYPES
    steps = graph_steps(client, upload.id)
    assert steps.keys() == {"postprocess.graph.1", "postprocess.graph.2"}
    for step in steps.values():
        assert step.status == v1.SpanStatus.DONE
        assert step.output is not None and step.input is not None
        output = step.output.to_dict()
        assert (output["entities"], output["relations"]) == (2, 1)
        assert output["dropped"] == {"entities_off_type": 1}
        assert step.input.to_dict()["entity_types"] == ENTITY_TYPES


def test_an_upload_with_the_graph_off_plans_no_extraction(
    client: SluiceClient, tmp_path: Path
) -> None:
    with ChatServer(answer=extraction) as chat:
        kb = client.create_knowledge_base(
            f"graph-off-{uuid.uuid4().hex[:8]}", config=graph_config(chat)
        )
        upload = client.upload_file(
            kb.id,
            document(tmp_path / "notes.md"),
            process_config=v1.ProcessConfig(graph_enabled=False),
        )
        finished = done(client, upload.id)
        assert chat.log() == []

    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    assert graph_steps(client, upload.id) == {}


def test_a_cancel_in_post_processing_drops_the_graph_the_round_was_building(
    client: SluiceClient, tmp_path: Path
) -> None:
    # The crane section is answered at once; the trade section's answer waits until the
    # knowledge was cancelled, so its write comes after the cancel.
    cancelled = threading.Event()

    def held_extraction(request: ChatRequest) -> str:
        if SECTIONS["trade"] in request.texts[-1]:
            assert cancelled.wait(WAIT_S)
        return extraction(request)

    with ChatServer(answer=held_extraction) as chat:
        kb = client.create_knowledge_base(
            f"graph-cancel-{uuid.uuid4().hex[:8]}", config=graph_config(chat)
        )
        upload = client.upload_file(kb.id, document(tmp_path / "notes.md"))
        wait_until(lambda: bool(list(client.list_entities(kb.id, name_contains="ada"))), WAIT_S)
        client.cancel_parse(upload.id)
        cancelled.set()
        wait_until(lambda: len(chat.log()) == 2, WAIT_S)
        # The late answer's task has had its chance to write.
        time.sleep(1.0)
        names = {entity.name for entity in client.list_entities(kb.id)}

    assert client.get_knowledge(upload.id).parse_status == v1.ParseStatus.CANCELLED
    assert names == set()
