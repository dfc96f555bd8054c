"""Graph store writes on real PostgreSQL and SQLite: entities and relations merged per
knowledge base, a retried chunk replacing its own rows, the round guard, concurrent merges,
and removals that prune what nothing mentions any more."""

from __future__ import annotations

import random

from storage.db.engine import Database
from storage.graph.sql_store import SqlGraphStore
from storage.graph.store import Entity
from tests.integration.graph.conftest import (
    Scope,
    extraction,
    finalizing_knowledge,
    run_together,
    set_round,
)


def entities_by_name(store: SqlGraphStore, scope: Scope) -> dict[str, Entity]:
    return {e.name.casefold(): e for e in store.find_entities([scope.knowledge_base_id], limit=100)}


def test_two_knowledges_build_one_merged_graph(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    first, second = finalizing_knowledge(database, scope), finalizing_knowledge(database, scope)

    assert store.write_chunk(
        scope.tenant_id,
        scope.knowledge_base_id,
        first.id,
        1,
        extraction(
            "c1",
            [("Acme Corp.", "ORG"), ("Jane Roe", "PERSON")],
            [("Jane Roe", "works_at", "Acme Corp.")],
        ),
    )
    # Other spellings of the same names (case, full-width letters, spaces, quotes).
    assert store.write_chunk(
        scope.tenant_id,
        scope.knowledge_base_id,
        second.id,
        1,
        extraction(
            "c2",
            [
                ("«\uff21\uff23\uff2d\uff25  corp»", "ORG"),
                ("jane roe", "PERSON"),
                ("Acme", "PRODUCT"),
            ],
            [("JANE ROE", "works_at", "acme corp")],
            weight=2.0,
        ),
    )

    found = store.find_entities([scope.knowledge_base_id], limit=10)
    assert sorted((e.name, e.type, e.chunk_count, e.knowledge_count) for e in found) == [
        ("Acme", "PRODUCT", 1, 1),
        # The first spelling names the entity.
        ("Acme Corp.", "ORG", 2, 2),
        ("Jane Roe", "PERSON", 2, 2),
    ]
    acme = next(e for e in found if e.type == "ORG")
    around = store.neighbourhood([scope.knowledge_base_id], acme.id, depth=1, limit=10)
    assert around is not None
    (works_at,) = around.relations
    assert (works_at.relation, works_at.weight, works_at.source_count) == ("works_at", 3.0, 2)
    sources = store.relation_sources([scope.knowledge_base_id], works_at.id)
    assert sources is not None
    assert sorted((s.chunk_id, s.knowledge_id) for s in sources) == sorted(
        [("c1", first.id), ("c2", second.id)]
    )
    assert store.entity_counts(scope.knowledge_base_id) == {"entities": 3, "relations": 1}


def test_the_same_names_in_another_knowledge_base_are_other_entities(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    from tests.integration.storage.conftest import new_scope

    other = new_scope(database)
    mine, theirs = finalizing_knowledge(database, scope), finalizing_knowledge(database, other)
    store.write_chunk(
        scope.tenant_id, scope.knowledge_base_id, mine.id, 1, extraction("m1", [("Pump", "DEVICE")])
    )
    store.write_chunk(
        other.tenant_id,
        other.knowledge_base_id,
        theirs.id,
        1,
        extraction("t1", [("pump", "DEVICE")]),
    )

    (pump,) = store.find_entities([scope.knowledge_base_id], limit=10)
    assert pump.knowledge_count == 1
    assert store.get_entity([other.knowledge_base_id], pump.id) is None


def test_a_retried_chunk_replaces_its_own_rows(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    doc, other = finalizing_knowledge(database, scope), finalizing_knowledge(database, scope)
    kb, tenant = scope.knowledge_base_id, scope.tenant_id
    store.write_chunk(tenant, kb, other.id, 1, extraction("o1", [("Gate", "DEVICE")]))
    store.write_chunk(
        tenant,
        kb,
        doc.id,
        1,
        extraction(
            "c1",
            [("Pump", "DEVICE"), ("Valve", "DEVICE"), ("Gate", "DEVICE")],
            [("Pump", "feeds", "Valve"), ("Pump", "opens", "Gate")],
        ),
    )

    # The retry found other things in the same chunk.
    assert store.write_chunk(
        tenant,
        kb,
        doc.id,
        1,
        extraction("c1", [("Pump", "DEVICE"), ("Tank", "DEVICE")], [("Pump", "fills", "Tank")]),
    )

    names = entities_by_name(store, scope)
    # Valve was only in the first try: gone. Gate stays for the other knowledge, without
    # this chunk's mention.
    assert {n: e.chunk_count for n, e in names.items()} == {"pump": 1, "tank": 1, "gate": 1}
    around = store.neighbourhood([kb], names["pump"].id, depth=2, limit=10)
    assert around is not None
    assert [(r.relation, r.weight) for r in around.relations] == [("fills", 1.0)]
    assert store.entity_counts(kb) == {"entities": 3, "relations": 1}


def test_nothing_is_written_for_a_round_that_is_not_current_and_finalizing(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    newer = finalizing_knowledge(database, scope, attempt=2)
    processing = finalizing_knowledge(database, scope, parse_status="processing")
    cancelled = finalizing_knowledge(database, scope, parse_status="cancelled")
    chunk = extraction(
        "c1", [("Pump", "DEVICE"), ("Valve", "DEVICE")], [("Pump", "feeds", "Valve")]
    )
    kb, tenant = scope.knowledge_base_id, scope.tenant_id

    assert not store.write_chunk(tenant, kb, newer.id, 1, chunk)
    assert not store.write_chunk(tenant, kb, processing.id, 1, chunk)
    assert not store.write_chunk(tenant, kb, cancelled.id, 1, chunk)
    assert not store.write_chunk(tenant, kb, "no-such-knowledge", 1, chunk)
    assert store.entity_counts(kb) == {"entities": 0, "relations": 0}

    assert store.write_chunk(tenant, kb, newer.id, 2, chunk)
    assert store.entity_counts(kb) == {"entities": 2, "relations": 1}


def test_concurrent_chunks_of_many_knowledges_merge_into_one_entity_each(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    writers = 8
    docs = [finalizing_knowledge(database, scope) for _ in range(writers)]
    names = [("Pump", "DEVICE"), ("Valve", "DEVICE"), ("Gate", "DEVICE"), ("Jane", "PERSON")]

    def write(index: int) -> bool:
        # Each writer names them in its own order and spelling.
        own = [(name.upper() if index % 2 else name, kind) for name, kind in names]
        random.Random(index).shuffle(own)
        relations = [("valve", "near", "GATE"), ("jane", "operates", "pump")]
        return store.write_chunk(
            scope.tenant_id,
            scope.knowledge_base_id,
            docs[index].id,
            1,
            extraction(f"chunk-{index}", own, relations),
        )

    assert run_together(writers, write) == [True] * writers

    found = store.find_entities([scope.knowledge_base_id], limit=100)
    assert sorted((e.name.casefold(), e.chunk_count, e.knowledge_count) for e in found) == [
        (name.casefold(), writers, writers) for name, _ in sorted(names)
    ]
    jane = next(e for e in found if e.type == "PERSON")
    around = store.neighbourhood([scope.knowledge_base_id], jane.id, depth=1, limit=10)
    assert around is not None
    assert [(r.relation, r.source_count) for r in around.relations] == [("operates", writers)]


def test_writes_racing_removals_of_other_knowledges_keep_every_new_mention(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    # Removing the knowledge that last mentioned an entity prunes it; a writer merging the
    # same entity at that moment must end with the entity and its mention, never neither.
    pairs = 4
    doomed = [finalizing_knowledge(database, scope) for _ in range(pairs)]
    kept = [finalizing_knowledge(database, scope) for _ in range(pairs)]
    shared = [("Pump", "DEVICE"), ("Valve", "DEVICE")]
    for index, doc in enumerate(doomed):
        store.write_chunk(
            scope.tenant_id,
            scope.knowledge_base_id,
            doc.id,
            1,
            extraction(f"d{index}", shared, [("Pump", "feeds", "Valve")]),
        )

    def job(index: int) -> int | bool:
        if index % 2:
            return store.remove_knowledges([doomed[index // 2].id])
        return store.write_chunk(
            scope.tenant_id,
            scope.knowledge_base_id,
            kept[index // 2].id,
            1,
            extraction(f"k{index}", shared, [("Pump", "feeds", "Valve")]),
        )

    results = run_together(2 * pairs, job)

    assert results[0::2] == [True] * pairs
    assert results[1::2] == [3] * pairs  # two mentions and one source each
    names = entities_by_name(store, scope)
    assert {n: (e.chunk_count, e.knowledge_count) for n, e in names.items()} == {
        "pump": (pairs, pairs),
        "valve": (pairs, pairs),
    }
    around = store.neighbourhood([scope.knowledge_base_id], names["pump"].id, depth=1, limit=5)
    assert around is not None
    assert [r.source_count for r in around.relations] == [pairs]


def test_removing_a_knowledge_prunes_its_orphans_and_keeps_the_others(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    doomed, kept = finalizing_knowledge(database, scope), finalizing_knowledge(database, scope)
    kb, tenant = scope.knowledge_base_id, scope.tenant_id
    store.write_chunk(
        tenant,
        kb,
        doomed.id,
        1,
        extraction(
            "d1",
            [("Pump", "DEVICE"), ("Valve", "DEVICE"), ("Jane", "PERSON")],
            [("Pump", "feeds", "Valve"), ("Jane", "operates", "Pump")],
        ),
    )
    store.write_chunk(tenant, kb, doomed.id, 1, extraction("d2", [("Valve", "DEVICE")]))
    store.write_chunk(
        tenant,
        kb,
        kept.id,
        1,
        extraction("k1", [("Pump", "DEVICE"), ("Valve", "DEVICE")], [("Pump", "feeds", "Valve")]),
    )

    # Mentions: 3 + 1, sources: 2.
    assert store.remove_knowledges([doomed.id, "no-such-knowledge"]) == 6
    assert store.remove_knowledges([doomed.id]) == 0

    names = entities_by_name(store, scope)
    assert {n: (e.chunk_count, e.knowledge_count) for n, e in names.items()} == {
        "pump": (1, 1),
        "valve": (1, 1),
    }
    around = store.neighbourhood([kb], names["pump"].id, depth=1, limit=5)
    assert around is not None
    assert [(r.relation, r.source_count) for r in around.relations] == [("feeds", 1)]
    sources = store.relation_sources([kb], around.relations[0].id)
    assert sources is not None
    assert [(s.chunk_id, s.knowledge_id) for s in sources] == [("k1", kept.id)]

    assert store.remove_knowledges([kept.id]) == 3
    assert store.entity_counts(kb) == {"entities": 0, "relations": 0}


def test_removing_rounds_never_touches_a_newer_round(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    doc = finalizing_knowledge(database, scope)
    kb, tenant = scope.knowledge_base_id, scope.tenant_id
    for attempt in (1, 2, 3):
        set_round(database, doc.id, attempt, "finalizing")
        store.write_chunk(
            tenant,
            kb,
            doc.id,
            attempt,
            extraction(
                f"r{attempt}",
                [("Pump", "DEVICE"), (f"Part {attempt}", "DEVICE")],
                [("Pump", "holds", f"Part {attempt}")],
            ),
        )

    assert store.remove_rounds(doc.id, 2) == 3
    assert sorted(entities_by_name(store, scope)) == ["part 1", "part 3", "pump"]
    assert store.remove_rounds(doc.id, 2, and_older=True) == 3
    names = entities_by_name(store, scope)
    assert sorted(names) == ["part 3", "pump"]
    assert names["pump"].chunk_count == 1
    assert store.entity_counts(kb) == {"entities": 2, "relations": 1}
