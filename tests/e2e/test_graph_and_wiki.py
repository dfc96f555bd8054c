"""Graph and wiki together, end to end in lite and full mode: a knowledge base with graph
extraction and the wiki on, both models served by one real chat-completions server (the
extraction's and the synthesis's JSON-schema questions), two documents that share an
entity. GraphService shows one merged graph over real gRPC: the shared harbour is one
entity mentioned by both, each document's relation to it keeps its own source chunk; the
wiki's harbour page has both as sources. Deleting one document removes its entity, its
edge and its wiki contribution, and keeps the other's."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.waiting import wait_until

ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
HARBOUR = "Varnholt Harbour"
# Each document: (title, text, the person in it, the relation to the harbour).
CRANE = ("Crane log", "Ada Lovelace runs the crane of Varnholt Harbour.", "Ada Lovelace")
FERRY = ("Ferry notes", "Osk Brand steers the ferry out of Varnholt Harbour.", "Osk Brand")
PEOPLE = {CRANE[1]: CRANE[2], FERRY[1]: FERRY[2]}


def answer(request: ChatRequest) -> str:
    """Extraction: the chunk's person, the harbour and the person's relation to it. Wiki:
    one harbour topic per document; a page body of its current text and new material."""
    asked = request.texts[-1]
    properties = (request.schema or {}).get("properties", {})
    if "entities" in properties:
        person = next(name for text, name in PEOPLE.items() if text in asked)
        return json.dumps(
            {
                "entities": [
                    {"name": person, "type": "person", "description": ""},
                    {"name": HARBOUR, "type": "place", "description": ""},
                ],
                "relations": [
                    {"source": person, "target": HARBOUR, "relation": "works_at", "description": ""}
                ],
            }
        )
    if "topics" in properties:
        sentence = next(text for text in PEOPLE if text in asked)
        topic = {"title": HARBOUR, "existing_slug": "", "contribution": sentence}
        return json.dumps({"topics": [topic]})
    current, material = asked.split("Current text:\n", 1)[1].split("\n\nNew material:\n", 1)
    lines = [] if current.startswith("(empty") else current.splitlines()
    lines += [line for line in material.splitlines() if line and not line.startswith("From ")]
    return json.dumps({"body": "\n".join(lines)})


@pytest.fixture(scope="module")
def chat() -> Iterator[ChatServer]:
    with ChatServer(answer=answer) as server:
        yield server


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"graph-wiki-{request.param}"), extra_env=ENV) as s:
        yield s


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


def _kb(client: SluiceClient, chat: ChatServer) -> v1.KnowledgeBase:
    model = v1.ModelConfig(provider="openai", model="enricher", base_url=chat.base_url)
    config = v1.KnowledgeBaseConfig(
        indexing=v1.IndexingStrategy(
            vector_enabled=True, keyword_enabled=True, graph_enabled=True, wiki_enabled=True
        ),
        extract=v1.ExtractConfig(enabled=True, model=model),
        wiki=v1.WikiConfig(synthesis_model=model),
    )
    return client.create_knowledge_base(f"graph-wiki-{uuid.uuid4().hex[:8]}", config=config)


def _entities(client: SluiceClient, kb_id: str) -> dict[str, v1.Entity]:
    return {entity.name: entity for entity in client.list_entities(kb_id)}


def _harbour_sources(client: SluiceClient, kb_id: str) -> set[str]:
    page = client.get_wiki_page(kb_id, "varnholt-harbour")
    return {source.knowledge_id for source in page.sources}


def test_two_documents_share_one_graph_and_one_page_and_a_delete_takes_one_out(
    client: SluiceClient, chat: ChatServer
) -> None:
    kb = _kb(client, chat)
    crane = client.create_manual(kb.id, CRANE[0], CRANE[1])
    ferry = client.create_manual(kb.id, FERRY[0], FERRY[1])
    for knowledge in (crane, ferry):
        finished = done(client, knowledge.id)
        assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
        assert finished.pending_subtasks_count == 0

    entities = _entities(client, kb.id)
    assert set(entities) == {HARBOUR, CRANE[2], FERRY[2]}
    harbour = entities[HARBOUR]
    assert (harbour.knowledge_count, harbour.chunk_count) == (2, 2)
    around = client.get_neighbourhood(harbour.id, depth=1)
    assert {e.name for e in around.entities} >= {CRANE[2], FERRY[2]}
    edges = {r.source_entity_id: r for r in around.relations}
    assert set(edges) == {entities[CRANE[2]].id, entities[FERRY[2]].id}
    for person, knowledge in ((CRANE[2], crane), (FERRY[2], ferry)):
        [source] = client.get_relation_sources(edges[entities[person].id].id)
        assert source.knowledge_id == knowledge.id
    assert _harbour_sources(client, kb.id) == {crane.id, ferry.id}

    client.delete_knowledge(ferry.id)
    wait_until(lambda: FERRY[2] not in _entities(client, kb.id), 120, "the ferry's entity gone")
    wait_until(lambda: _harbour_sources(client, kb.id) == {crane.id}, 120, "its page source gone")

    entities = _entities(client, kb.id)
    assert set(entities) == {HARBOUR, CRANE[2]}
    assert (entities[HARBOUR].knowledge_count, entities[HARBOUR].chunk_count) == (1, 1)
    around = client.get_neighbourhood(entities[HARBOUR].id, depth=1)
    [edge] = around.relations
    assert edge.source_entity_id == entities[CRANE[2]].id
    [source] = client.get_relation_sources(edge.id)
    assert source.knowledge_id == crane.id
    page = client.get_wiki_page(kb.id, "varnholt-harbour")
    assert CRANE[1] in page.content and FERRY[1] not in page.content
