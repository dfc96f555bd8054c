"""The wiki end to end, in lite and full mode: two documents of a knowledge base with the wiki
on and a synthesis model (a real chat-completions server answering its JSON-schema
questions) are ingested by the wiki task into pages, and WikiService serves them over real
gRPC: one page per topic, the topic both documents share with both as its sources (their
titles, the attempt each was ingested under), each page's links resolved to the pages they
name. Deleting one document takes it out of the pages WikiService shows."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator

import pytest
from sluice_client import NotFound, SluiceClient
from sluice_client._proto.sluice import v1

from core.wiki_markdown import page_links
from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.waiting import wait_until

# The chat server lets the test's own requests in (the SSRF rules refuse loopback).
ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
HARBOUR = "Varnholt Harbour"
PIER = "North Pier"
NOTES = "The harbour closes at dusk. Ferries leave the harbour at seven."
LOG = "The harbour master inspects the pier every Monday. The pier lamps are blue."
_CATALOG_LINK = re.compile(r"^- (\[[^]\n]+\]\(wiki://[^)\s]+\))$", re.M)


def synthesis(request: ChatRequest) -> str:
    """A document's topics: the harbour (every sentence naming it) and the pier (when one
    does); a page's body: its current text and its new material, a line each, then a link to
    every other page the wiki offers."""
    asked = request.texts[-1]
    if "topics" in (request.schema or {}).get("properties", {}):
        text = asked.split("\n\nDocument: ", 1)[1].split("\n\n", 1)[1]
        sentences = [s.strip() + "." for s in text.split(".") if s.strip()]
        topics = [
            {
                "title": name,
                "existing_slug": "",
                "contribution": " ".join(s for s in sentences if key in s),
            }
            for name, key in ((HARBOUR, "harbour"), (PIER, "pier"))
            if any(key in s for s in sentences)
        ]
        return json.dumps({"topics": topics})
    offered, rest = asked.split("Current text:\n", 1)
    current, material = rest.split("\n\nNew material:\n", 1)
    lines = [] if current.startswith("(empty") else current.splitlines()
    lines += [line for line in material.splitlines() if line and not line.startswith("From ")]
    lines += [link for link in _CATALOG_LINK.findall(offered) if link not in lines]
    return json.dumps({"body": "\n".join(lines)})


@pytest.fixture(scope="module")
def chat() -> Iterator[ChatServer]:
    with ChatServer(answer=synthesis) as server:
        yield server


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"wiki-pages-{request.param}"), extra_env=ENV) as s:
        yield s


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


def _wiki_kb(client: SluiceClient, chat: ChatServer) -> v1.KnowledgeBase:
    config = v1.KnowledgeBaseConfig(
        indexing=v1.IndexingStrategy(vector_enabled=True, keyword_enabled=True, wiki_enabled=True),
        wiki=v1.WikiConfig(
            synthesis_model=v1.ModelConfig(provider="openai", model="synth", base_url=chat.base_url)
        ),
    )
    return client.create_knowledge_base(f"wiki-{uuid.uuid4().hex[:8]}", config=config)


def test_documents_become_pages_that_wiki_service_serves(
    client: SluiceClient, chat: ChatServer
) -> None:
    kb = _wiki_kb(client, chat)
    notes = client.create_manual(kb.id, "Harbour notes", NOTES)
    log = client.create_manual(kb.id, "Master's log", LOG)
    for knowledge in (notes, log):
        finished = done(client, knowledge.id)
        assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message

    pages = {p.slug: p for p in client.list_wiki_pages(kb.id)}
    assert [(p.title, p.source_count) for p in pages.values()] == [(PIER, 1), (HARBOUR, 2)]
    harbour = client.get_wiki_page(kb.id, "varnholt-harbour")
    assert harbour.id == pages["varnholt-harbour"].id
    assert harbour.version == pages["varnholt-harbour"].version >= 2
    assert sorted((s.knowledge_id, s.title, s.attempt) for s in harbour.sources) == sorted(
        [(notes.id, "Harbour notes", 1), (log.id, "Master's log", 1)]
    )
    assert "The harbour closes at dusk." in harbour.content
    assert "The harbour master inspects the pier every Monday." in harbour.content
    assert f"knowledge://{notes.id}" in harbour.content
    pier = client.get_wiki_page(page_id=pages["north-pier"].id)
    assert [(s.knowledge_id, s.title) for s in pier.sources] == [(log.id, "Master's log")]
    assert "The pier lamps are blue." in pier.content
    # Whatever the pages link to is listed, resolved to the page of that slug.
    for page in (harbour, pier):
        assert [link.slug for link in page.links] == page_links(page.content)
        for link in page.links:
            assert (link.page_id, link.title) == (pages[link.slug].id, pages[link.slug].title)
    # The page written second was offered the first to link to.
    assert any(page.links for page in (harbour, pier))

    client.delete_knowledge(log.id)

    def pier_gone() -> bool:
        try:
            client.get_wiki_page(kb.id, "north-pier")
        except NotFound:
            return True
        return False

    wait_until(pier_gone, timeout=120)
    [left] = client.list_wiki_pages(kb.id)
    assert (left.slug, left.source_count) == ("varnholt-harbour", 1)
    harbour = client.get_wiki_page(kb.id, "varnholt-harbour")
    assert [s.knowledge_id for s in harbour.sources] == [notes.id]
    assert "pier" not in harbour.content.lower()
    assert harbour.links == []
