"""GraphService and Search's graph expansion over real gRPC, in lite and in full mode, on a
graph two documents built (written through the deployment's graph store, as graph
extraction writes it).

Both documents mention the Acme pump: it is one entity of the knowledge base, mentioned by
both, and the relation both found is one relation with two sources. Deleting one document
removes what only it said and keeps the other's. Search with graph expansion adds, after
its hits, the chunks that mention the hits' entities, saying which entities led there.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sluice_client import InvalidArgument, NotFound, SluiceClient
from sluice_client._proto.sluice import v1
from sluice_client.cli import main as cli

from tests.e2e.graph_support import stack_database, write_graph
from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import Stack

PUMPS = b"# Pumps\n\nThe Acme pump feeds the north valve of the harbour basin.\n"
ROTA = b"# Rota\n\nJane Roe inspects the ACME pump, which feeds the north valve, on Mondays.\n"
BAKERY = b"# Bakery\n\nThe bakery opens at six and sells rye bread.\n"


@dataclass(frozen=True)
class Graph:
    kb_id: str
    pumps_id: str
    rota_id: str
    bakery_id: str
    pumps_chunk: str
    rota_chunk: str


def _document(client: SluiceClient, kb_id: str, name: str, body: bytes) -> tuple[str, str]:
    knowledge = client.upload_file(kb_id, io.BytesIO(body), file_name=name)
    done(client, knowledge.id)
    [chunk] = client.list_chunks(knowledge.id)
    return knowledge.id, chunk.id


@pytest.fixture(scope="module")
def graph(stack: Stack, client: SluiceClient) -> Iterator[Graph]:
    kb = client.create_knowledge_base(f"graph-{uuid.uuid4().hex[:8]}")
    pumps, pumps_chunk = _document(client, kb.id, "pumps.md", PUMPS)
    rota, rota_chunk = _document(client, kb.id, "rota.md", ROTA)
    bakery, bakery_chunk = _document(client, kb.id, "bakery.md", BAKERY)
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
                    [("Jane Roe", "PERSON"), ("acme  PUMP", "DEVICE"), ("North Valve", "DEVICE")],
                    [("Jane Roe", "inspects", "acme pump"), ("ACME pump", "feeds", "north valve")],
                )
            },
        )
        write_graph(db, bakery, {bakery_chunk: ([("bakery", "PLACE")], [])})
    yield Graph(kb.id, pumps, rota, bakery, pumps_chunk, rota_chunk)


def _entity(client: SluiceClient, kb_id: str, name: str) -> v1.Entity:
    [found] = client.list_entities(kb_id, name_contains=name)
    return found


def test_two_documents_build_one_merged_graph(client: SluiceClient, graph: Graph) -> None:
    entities = list(client.list_entities(graph.kb_id, page_size=1))  # one per page
    assert [(e.name, e.type, e.chunk_count, e.knowledge_count) for e in entities] == [
        ("Acme pump", "DEVICE", 2, 2),
        ("north valve", "DEVICE", 2, 2),
        # Then by name.
        ("bakery", "PLACE", 1, 1),
        ("Jane Roe", "PERSON", 1, 1),
    ]
    assert [e.name for e in client.list_entities(graph.kb_id, type="DEVICE")] == [
        "Acme pump",
        "north valve",
    ]
    assert _entity(client, graph.kb_id, " ACME").name == "Acme pump"

    pump = _entity(client, graph.kb_id, "acme")
    assert client.get_entity(pump.id) == pump
    around = client.get_neighbourhood(pump.id, depth=1)
    assert around.center == pump
    assert sorted(e.name for e in around.entities) == ["Jane Roe", "north valve"]
    feeds = next(r for r in around.relations if r.relation == "feeds")
    assert (feeds.source_entity_id, feeds.source_count, feeds.weight) == (pump.id, 2, 2.0)
    assert not around.truncated

    sources = list(client.get_relation_sources(feeds.id, page_size=1))
    assert sorted((s.knowledge_title, s.chunk_id) for s in sources) == [
        ("pumps.md", graph.pumps_chunk),
        ("rota.md", graph.rota_chunk),
    ]
    assert all("north valve" in s.content for s in sources)
    assert {s.description for s in sources} == {
        "Acme pump feeds north valve",
        "ACME pump feeds north valve",
    }


def test_limits_and_unknown_ids_are_refused_as_the_other_services_do(
    client: SluiceClient, graph: Graph
) -> None:
    pump = _entity(client, graph.kb_id, "acme")
    with pytest.raises(InvalidArgument) as refused:
        client.get_neighbourhood(pump.id, depth=4, max_entities=-1)
    assert [field for field, _ in refused.value.field_violations] == ["depth", "max_entities"]
    with pytest.raises(InvalidArgument) as refused:
        client.search("north valve", [graph.kb_id], graph_expansion=v1.GraphExpansion(hops=3))
    assert [field for field, _ in refused.value.field_violations] == ["graph_expansion.hops"]
    with pytest.raises(InvalidArgument):
        list(client.list_entities(graph.kb_id, page_size=-1))
    for call in (
        lambda: client.get_entity("no-such-entity"),
        lambda: client.get_neighbourhood("no-such-entity"),
        lambda: list(client.get_relation_sources("no-such-relation")),
        lambda: list(client.list_entities("no-such-kb")),
    ):
        with pytest.raises(NotFound):
            call()
    capped = client.get_neighbourhood(pump.id, depth=1, max_entities=1)
    assert len(capped.entities) == 1 and capped.truncated


def test_search_expands_its_hits_through_the_graph(client: SluiceClient, graph: Graph) -> None:
    [hit] = client.search("basin", [graph.kb_id], top_k=1)
    assert hit.chunk_id == graph.pumps_chunk and hit.graph_match is None

    results = client.search(
        "basin", [graph.kb_id], top_k=1, graph_expansion=v1.GraphExpansion(hops=0)
    )
    assert [r.chunk_id for r in results] == [graph.pumps_chunk, graph.rota_chunk]
    added = results[1]
    assert added.graph_match is not None
    assert added.graph_match.hops == 0
    assert sorted(e.name for e in added.graph_match.entities) == ["Acme pump", "north valve"]
    # The documented score: the lowest hit's x n/(n+1) x 0.5^hops, n = 2 entities.
    assert added.score == pytest.approx(results[0].score * 2 / 3, rel=1e-5)
    assert (added.knowledge_title, added.knowledge_id) == ("rota.md", graph.rota_id)
    assert "Jane Roe" in added.content
    # Two relations further still reaches nothing of the bakery: it shares no entity.
    wide = client.search("basin", [graph.kb_id], top_k=1, graph_expansion=v1.GraphExpansion(hops=2))
    assert [r.chunk_id for r in wide] == [graph.pumps_chunk, graph.rota_chunk]


def test_the_cli_reads_the_graph(
    client: SluiceClient, graph: Graph, stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        cli(["--target", stack.target, "graph", "entities", graph.kb_id, "--type", "PERSON"]) == 0
    )
    assert '"name": "Jane Roe"' in capsys.readouterr().out
    assert (
        cli(
            [
                "--target",
                stack.target,
                "search",
                graph.kb_id,
                "basin",
                "--top-k",
                "1",
                "--graph-hops",
                "1",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "[graph: " in lines[1] and "rota.md" in lines[1]


def test_deleting_a_document_removes_what_only_it_said(client: SluiceClient, graph: Graph) -> None:
    jane = _entity(client, graph.kb_id, "jane")
    client.delete_knowledge(graph.rota_id)

    with pytest.raises(NotFound):
        client.get_entity(jane.id)
    pump = _entity(client, graph.kb_id, "acme")
    assert (pump.chunk_count, pump.knowledge_count) == (1, 1)
    around = client.get_neighbourhood(pump.id, depth=2)
    assert [e.name for e in around.entities] == ["north valve"]
    [feeds] = around.relations
    assert feeds.source_count == 1
    [source] = client.get_relation_sources(feeds.id)
    assert source.knowledge_id == graph.pumps_id
