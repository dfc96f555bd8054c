"""Graph store reads on real PostgreSQL and SQLite: entities by name and type (paged, most
mentioned first), one entity, neighbourhoods to a depth within a limit, the chunks behind a
relation, the chunks search hits lead to, and the knowledge base's counts; each scoped to
the knowledge bases asked for."""

from __future__ import annotations

import pytest

from storage.db.engine import Database
from storage.graph.sql_store import SqlGraphStore
from tests.integration.graph.conftest import Scope, extraction, finalizing_knowledge
from tests.integration.storage.conftest import new_scope

# A chain pump → valve → gate → dam, and jane who operates the pump, over four chunks of
# two documents; "Pump" is mentioned three times, "Valve" twice.
CHUNKS = {
    "a1": ([("Pump", "DEVICE"), ("Valve", "DEVICE")], [("Pump", "feeds", "Valve")]),
    "a2": ([("Valve", "DEVICE"), ("Gate", "DEVICE")], [("Valve", "opens", "Gate")]),
    "b1": ([("Gate", "DEVICE"), ("Dam", "PLACE")], [("Gate", "part_of", "Dam")]),
    "b2": ([("Jane Roe", "PERSON"), ("Pump", "DEVICE")], [("Jane Roe", "operates", "Pump")]),
    "b3": ([("pump", "DEVICE")], []),
}


@pytest.fixture
def graph(database: Database, store: SqlGraphStore, scope: Scope) -> dict[str, str]:
    """The chunks written; returns each entity's id by lower-case name."""
    docs = {"a": finalizing_knowledge(database, scope), "b": finalizing_knowledge(database, scope)}
    for chunk_id, (entities, relations) in CHUNKS.items():
        doc = docs[chunk_id[0]]
        assert store.write_chunk(
            scope.tenant_id,
            scope.knowledge_base_id,
            doc.id,
            1,
            extraction(chunk_id, entities, relations),
        )
    return {
        e.name.casefold(): e.id for e in store.find_entities([scope.knowledge_base_id], limit=10)
    }


def test_entities_by_name_and_type_most_mentioned_first_in_pages(
    store: SqlGraphStore, scope: Scope, graph: dict[str, str]
) -> None:
    kb = [scope.knowledge_base_id]
    everything = store.find_entities(kb, limit=10)
    assert [(e.name, e.chunk_count) for e in everything] == [
        ("Pump", 3),
        ("Gate", 2),
        ("Valve", 2),
        ("Dam", 1),
        ("Jane Roe", 1),
    ]
    assert [e.knowledge_count for e in everything] == [2, 2, 1, 1, 1]
    pages = [store.find_entities(kb, limit=2, offset=o) for o in (0, 2, 4)]
    assert [e.name for page in pages for e in page] == [e.name for e in everything]
    assert store.count_entities(kb) == 5

    # The name is normalised as the stored names are: case, spacing, surrounding quotes.
    assert [e.name for e in store.find_entities(kb, name=" «VAL»", limit=10)] == ["Valve"]
    assert [e.name for e in store.find_entities(kb, name="a", type="DEVICE", limit=10)] == [
        "Gate",
        "Valve",
    ]
    assert store.count_entities(kb, name="a", type="DEVICE") == 2
    # LIKE's wildcards are plain characters.
    assert store.find_entities(kb, name="p_mp", limit=10) == []
    assert store.find_entities(kb, name="p%p", limit=10) == []
    assert store.find_entities(kb, type="PLANET", limit=10) == []


def test_reads_see_only_the_knowledge_bases_asked_for(
    database: Database, store: SqlGraphStore, scope: Scope, graph: dict[str, str]
) -> None:
    other = new_scope(database).knowledge_base_id
    pump = graph["pump"]

    assert store.find_entities([other], limit=10) == []
    assert store.count_entities([other]) == 0
    assert store.get_entity([other], pump) is None
    assert store.neighbourhood([other], pump, depth=2, limit=10) is None
    around = store.neighbourhood([scope.knowledge_base_id], pump, depth=1, limit=10)
    assert around is not None
    assert store.relation_sources([other], around.relations[0].id) is None
    assert store.related_chunks([other], ["a1"], hops=2, limit=10) == []
    assert store.entity_counts(other) == {"entities": 0, "relations": 0}


def test_an_entity_and_its_neighbourhood_to_a_depth(
    store: SqlGraphStore, scope: Scope, graph: dict[str, str]
) -> None:
    kb = [scope.knowledge_base_id]
    pump = store.get_entity(kb, graph["pump"])
    assert pump is not None
    assert (pump.name, pump.type, pump.description) == ("Pump", "DEVICE", "Pump in a1")
    assert store.get_entity(kb, "no-such-entity") is None
    assert store.entity_knowledge_base(pump.id) == scope.knowledge_base_id
    assert store.entity_knowledge_base("no-such-entity") is None
    assert store.neighbourhood(kb, "no-such-entity", depth=1, limit=10) is None

    near = store.neighbourhood(kb, pump.id, depth=1, limit=10)
    assert near is not None
    assert near.center == pump
    assert sorted(e.name for e in near.entities) == ["Jane Roe", "Valve"]
    assert sorted(r.relation for r in near.relations) == ["feeds", "operates"]
    assert not near.truncated

    far = store.neighbourhood(kb, pump.id, depth=3, limit=10)
    assert far is not None
    assert sorted(e.name for e in far.entities) == ["Dam", "Gate", "Jane Roe", "Valve"]
    assert sorted(r.relation for r in far.relations) == ["feeds", "opens", "operates", "part_of"]
    by_id = {r.relation: r for r in far.relations}
    assert (by_id["feeds"].source_id, by_id["feeds"].target_id) == (pump.id, graph["valve"])

    capped = store.neighbourhood(kb, pump.id, depth=3, limit=2)
    assert capped is not None
    assert capped.truncated
    assert len(capped.entities) == 2
    # Every relation returned joins entities that are returned.
    shown = {pump.id} | {e.id for e in capped.entities}
    assert all({r.source_id, r.target_id} <= shown for r in capped.relations)


def test_the_chunks_behind_a_relation(
    database: Database, store: SqlGraphStore, scope: Scope, graph: dict[str, str]
) -> None:
    kb = [scope.knowledge_base_id]
    near = store.neighbourhood(kb, graph["jane roe"], depth=1, limit=10)
    assert near is not None
    (operates,) = near.relations
    sources = store.relation_sources(kb, operates.id)
    assert sources is not None
    assert [(s.chunk_id, s.description) for s in sources] == [("b2", "operates in b2")]
    assert store.relation_sources(kb, "no-such-relation") is None
    assert store.get_relation(kb, operates.id) == operates
    assert store.get_relation([new_scope(database).knowledge_base_id], operates.id) is None
    assert store.relation_knowledge_base(operates.id) == scope.knowledge_base_id
    assert store.relation_knowledge_base("no-such-relation") is None


def test_the_chunks_search_hits_lead_to_through_the_graph(
    store: SqlGraphStore, scope: Scope, graph: dict[str, str]
) -> None:
    kb = [scope.knowledge_base_id]
    # a1 mentions pump and valve: b2 and b3 mention pump, a2 mentions valve (hop 0).
    same = store.related_chunks(kb, ["a1"], hops=0, limit=10)
    assert [(c.chunk_id, c.hops) for c in same] == [("a2", 0), ("b2", 0), ("b3", 0)]
    assert same[1].via_entity_ids == (graph["pump"],)
    assert same[0].via_entity_ids == (graph["valve"],)

    # One relation further: gate (from valve) and jane (from pump) bring in b1.
    wider = store.related_chunks(kb, ["a1"], hops=1, limit=10)
    assert [(c.chunk_id, c.hops) for c in wider] == [("a2", 0), ("b2", 0), ("b3", 0), ("b1", 1)]
    assert wider[-1].via_entity_ids == (graph["gate"],)
    assert [c.chunk_id for c in store.related_chunks(kb, ["a1"], hops=1, limit=2)] == [
        "a2",
        "b2",
    ]
    assert store.related_chunks(kb, ["nothing-mentioned-here"], hops=2, limit=10) == []


def test_the_knowledge_base_counts(
    store: SqlGraphStore, scope: Scope, graph: dict[str, str]
) -> None:
    assert store.entity_counts(scope.knowledge_base_id) == {"entities": 5, "relations": 4}
