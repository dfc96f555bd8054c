"""The graph store on the shared migrated databases (PostgreSQL and SQLite), and helpers
that write extractions through it the way graph extraction does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy import update

from storage.db.engine import Database
from storage.db.models import Knowledge
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.graph.sql_store import SqlGraphStore
from storage.graph.store import ChunkExtraction, ExtractedEntity, ExtractedRelation
from tests.integration.storage.conftest import Scope, new_scope, run_together

__all__ = ["Scope", "extraction", "finalizing_knowledge", "run_together", "set_round"]


@pytest.fixture
def scope(database: Database) -> Scope:
    """A fresh tenant with one knowledge base."""
    return new_scope(database)


@pytest.fixture
def store(database: Database) -> SqlGraphStore:
    return SqlGraphStore(database)


def finalizing_knowledge(db: Database, scope: Scope, **fields: Any) -> Knowledge:
    """A knowledge in post-processing (where graph extraction writes), at attempt 1."""
    values = {"parse_status": "finalizing", "attempt": 1, "title": "doc", **fields}
    return KnowledgeRepository(db).create(
        tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id, **values
    )


def set_round(db: Database, knowledge_id: str, attempt: int, parse_status: str) -> None:
    with db.session() as session:
        session.execute(
            update(Knowledge)
            .where(Knowledge.id == knowledge_id)
            .values(attempt=attempt, parse_status=parse_status)
        )


def extraction(
    chunk_id: str,
    entities: Sequence[tuple[str, str]],
    relations: Sequence[tuple[str, str, str]] = (),
    *,
    weight: float = 1.0,
) -> ChunkExtraction:
    """A chunk's extraction: entities as (name, type), relations as (source, relation,
    target) by name."""
    return ChunkExtraction(
        chunk_id,
        [ExtractedEntity(name, kind, f"{name} in {chunk_id}") for name, kind in entities],
        [
            ExtractedRelation(source, target, relation, f"{relation} in {chunk_id}", weight)
            for source, relation, target in relations
        ],
    )
