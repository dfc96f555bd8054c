"""Graph rows for the end-to-end tests of GraphService and Search's graph expansion,
written through the deployment's own graph store (SqlGraphStore.write_chunk) as graph
extraction writes them (extraction itself is tested on its own).

write_chunk only writes for a knowledge in post-processing at its attempt, as extraction
runs: the knowledge is held there for the writes, then completed again."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from sqlalchemy import update

from storage.db.engine import Database
from storage.db.models import Knowledge
from storage.graph.sql_store import SqlGraphStore
from storage.graph.store import ChunkExtraction, ExtractedEntity, ExtractedRelation
from tests.e2e.stacks import Stack
from workers.settings import Settings

# Entities as (name, type); relations as (source, relation, target) by name.
Entities = Sequence[tuple[str, str]]
Relations = Sequence[tuple[str, str, str]]


@contextmanager
def stack_database(stack: Stack) -> Iterator[Database]:
    db = Database.from_url(Settings.from_env(env=stack.env).storage.database_url)
    try:
        yield db
    finally:
        db.dispose()


def write_graph(
    db: Database,
    knowledge_id: str,
    chunks: Mapping[str, tuple[Entities, Relations]],
) -> None:
    """Each chunk's (entities, relations) merged into the knowledge base's graph."""
    with db.session() as session:
        row = session.get(Knowledge, knowledge_id)
        assert row is not None and row.parse_status == "completed", knowledge_id
        tenant_id, kb_id, attempt = row.tenant_id, row.knowledge_base_id, row.attempt
        row.parse_status = "finalizing"
    try:
        store = SqlGraphStore(db)
        for chunk_id, (entities, relations) in chunks.items():
            extraction = ChunkExtraction(
                chunk_id,
                [
                    ExtractedEntity(name, kind, f"{name} as the chunk tells")
                    for name, kind in entities
                ],
                [ExtractedRelation(s, t, r, f"{s} {r} {t}") for s, r, t in relations],
            )
            assert store.write_chunk(tenant_id, kb_id, knowledge_id, attempt, extraction)
    finally:
        with db.session() as session:
            session.execute(
                update(Knowledge)
                .where(Knowledge.id == knowledge_id)
                .values(parse_status="completed")
            )
