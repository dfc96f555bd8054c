"""A knowledge's graph moved into another knowledge base (MoveKnowledge, reuse_vectors), on
PostgreSQL and SQLite: its mentions and relation sources re-pointed at the target's entities
and relations (merged by name with what the target has), the source left with only what
others still mention, and a second run changing nothing."""

from __future__ import annotations

from storage.db.engine import Database
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.graph.sql_store import SqlGraphStore
from tests.integration.graph.conftest import Scope, extraction, finalizing_knowledge


def _names(store: SqlGraphStore, kb_id: str) -> dict[str, int]:
    return {e.name: e.chunk_count for e in store.find_entities([kb_id], limit=100)}


def test_the_graph_follows_the_knowledge(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    target_kb = KnowledgeBaseRepository(database).create(scope.tenant_id, "target").id
    moving = finalizing_knowledge(database, scope)
    staying = finalizing_knowledge(database, scope)
    store.write_chunk(
        scope.tenant_id,
        scope.knowledge_base_id,
        moving.id,
        1,
        extraction(
            "c-1", [("Heron", "bird"), ("Canal", "place")], [("Heron", "nests by", "Canal")]
        ),
    )
    store.write_chunk(
        scope.tenant_id,
        scope.knowledge_base_id,
        staying.id,
        1,
        extraction("c-2", [("Canal", "place")]),
    )
    # The target knows the canal already: the moved mention joins that entity.
    in_target = finalizing_knowledge(database, Scope(scope.tenant_id, target_kb))
    store.write_chunk(
        scope.tenant_id, target_kb, in_target.id, 1, extraction("c-3", [("canal", "place")])
    )

    assert store.move_knowledge(moving.id, scope.tenant_id, target_kb) == 2

    assert _names(store, scope.knowledge_base_id) == {"Canal": 1}
    assert _names(store, target_kb) == {"canal": 2, "Heron": 1}
    assert _relations(store, target_kb, "Heron") == ["nests by"]
    assert _relations(store, scope.knowledge_base_id, "Canal") == []
    # Again: nothing moves twice, nothing is duplicated.
    store.move_knowledge(moving.id, scope.tenant_id, target_kb)
    assert _names(store, target_kb) == {"canal": 2, "Heron": 1}
    assert _names(store, scope.knowledge_base_id) == {"Canal": 1}


def _entity(store: SqlGraphStore, kb_id: str, name: str) -> str:
    return next(e.id for e in store.find_entities([kb_id], limit=100) if e.name == name)


def _relations(store: SqlGraphStore, kb_id: str, name: str) -> list[str]:
    around = store.neighbourhood([kb_id], _entity(store, kb_id, name), depth=1, limit=10)
    assert around is not None
    return [r.relation for r in around.relations]
