"""What the graph store does for a chunk content edit, on real PostgreSQL and SQLite: a
chunk's rows removed whatever their round (or only while it is at the revision an edit
made), pruning what nothing mentions any more and keeping what other chunks said; and the
re-extraction's write, held to a completed knowledge at its attempt and the chunk at the
content revision it was queued for."""

from __future__ import annotations

from sqlalchemy import update

from storage.db.engine import Database
from storage.db.models import Chunk
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.graph.sql_store import SqlGraphStore
from tests.integration.graph.conftest import Scope, extraction, finalizing_knowledge, set_round


def names(store: SqlGraphStore, scope: Scope) -> dict[str, tuple[int, int]]:
    """Entity name: (chunk_count, knowledge_count)."""
    return {
        e.name: (e.chunk_count, e.knowledge_count)
        for e in store.find_entities([scope.knowledge_base_id], limit=100)
    }


def relations(store: SqlGraphStore, scope: Scope) -> set[tuple[str, str, int]]:
    """(source name, relation, source_count) of every relation of the knowledge base."""
    found: set[tuple[str, str, int]] = set()
    for entity in store.find_entities([scope.knowledge_base_id], limit=100):
        around = store.neighbourhood([scope.knowledge_base_id], entity.id, depth=1, limit=100)
        assert around is not None
        by_id = {e.id: e.name for e in [around.center, *around.entities]}
        found |= {(by_id[r.source_id], r.relation, r.source_count) for r in around.relations}
    return found


def test_removing_a_chunk_prunes_only_what_nothing_else_mentions(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    edited, other = finalizing_knowledge(database, scope), finalizing_knowledge(database, scope)
    writes = [
        (
            edited.id,
            extraction("c1", [("Alpha", "ORG"), ("Beta", "ORG")], [("Alpha", "owns", "Beta")]),
        ),
        (
            edited.id,
            extraction("c2", [("Beta", "ORG"), ("Gamma", "ORG")], [("Beta", "owns", "Gamma")]),
        ),
        (
            other.id,
            extraction("o1", [("Alpha", "ORG"), ("Delta", "ORG")], [("Alpha", "owns", "Delta")]),
        ),
    ]
    for knowledge_id, chunk in writes:
        assert store.write_chunk(scope.tenant_id, scope.knowledge_base_id, knowledge_id, 1, chunk)
    # The edited chunk also holds a row of an older round (remove_chunks takes every round).
    set_round(database, edited.id, 2, "finalizing")
    assert store.write_chunk(
        scope.tenant_id, scope.knowledge_base_id, edited.id, 2, extraction("c3", [("Omega", "ORG")])
    )

    assert store.remove_chunks(edited.id, []) == 0
    assert store.remove_chunks(edited.id, ["c1", "c3"]) == 4  # 3 mentions, 1 relation source

    assert names(store, scope) == {
        "Alpha": (1, 1),  # the other knowledge's chunk still names it
        "Beta": (1, 1),
        "Gamma": (1, 1),
        "Delta": (1, 1),
    }
    assert relations(store, scope) == {("Beta", "owns", 1), ("Alpha", "owns", 1)}
    assert store.entity_counts(scope.knowledge_base_id) == {"entities": 4, "relations": 2}
    assert store.remove_chunks(edited.id, ["c1"]) == 0, "nothing left to remove"


def test_a_re_extraction_writes_only_at_its_revision_of_a_completed_knowledge(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    knowledge = finalizing_knowledge(database, scope)
    chunk = NewChunk(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        knowledge_id=knowledge.id,
        attempt=1,
        chunk_index=0,
        content="Alpha owns Beta.",
    )
    ChunkRepository(database).insert_many([chunk])
    found = extraction(chunk.id, [("Alpha", "ORG")])

    def write(attempt: int = 1, revision: int | None = 1) -> bool:
        return store.write_chunk(
            scope.tenant_id,
            scope.knowledge_base_id,
            knowledge.id,
            attempt,
            found,
            chunk_revision=revision,
        )

    def set_revision(revision: int) -> None:
        with database.session() as session:
            session.execute(
                update(Chunk).where(Chunk.id == chunk.id).values(content_revision=revision)
            )

    set_revision(1)
    assert not write(), "finalizing is a round's, not a re-extraction's"
    set_round(database, knowledge.id, 1, "completed")
    assert not write(revision=None), "a round's write needs its knowledge finalizing"
    assert not write(revision=0), "the chunk was edited since"
    assert not write(attempt=2)
    assert names(store, scope) == {}

    assert write()
    assert names(store, scope) == {"Alpha": (1, 1)}

    set_revision(2)  # edited again: the older revision's answer is dropped
    assert not write(revision=1)
    set_round(database, knowledge.id, 2, "finalizing")  # reparsed
    set_revision(1)
    assert not write(attempt=1)
    assert not write(attempt=2)


def test_an_edits_removal_leaves_a_chunk_edited_again_to_the_later_edit(
    database: Database, store: SqlGraphStore, scope: Scope
) -> None:
    # Edit 1 (revision 2) removes its old rows late, after edit 2 (revision 3) committed and
    # its re-extraction wrote: those rows are edit 2's, and stay.
    knowledge = finalizing_knowledge(database, scope)
    chunk = NewChunk(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        knowledge_id=knowledge.id,
        attempt=1,
        chunk_index=0,
        content="Alpha owns Beta.",
    )
    ChunkRepository(database).insert_many([chunk])
    set_round(database, knowledge.id, 1, "completed")
    with database.session() as session:
        session.execute(update(Chunk).where(Chunk.id == chunk.id).values(content_revision=3))
    assert store.write_chunk(
        scope.tenant_id,
        scope.knowledge_base_id,
        knowledge.id,
        1,
        extraction(chunk.id, [("Gamma", "ORG")]),
        chunk_revision=3,
    )

    assert store.remove_chunks(knowledge.id, [chunk.id], content_revision=2) == 0
    assert names(store, scope) == {"Gamma": (1, 1)}
    assert store.remove_chunks(knowledge.id, [chunk.id], content_revision=3) == 1
    assert names(store, scope) == {}
