"""Writing the knowledge graph on SQL (PostgreSQL in full mode, SQLite in lite mode): one
chunk's extraction merged into its knowledge base's graph, and a round's or a knowledge's
contribution removed again.

Race-free merging: entities and relations are created by INSERT … ON CONFLICT DO NOTHING on
their merge keys, then read back, so two documents' chunks that find the same entity at the
same time end with one row. On PostgreSQL the read-back takes a KEY SHARE lock, and pruning
locks its candidates FOR UPDATE before it checks them, so a row is never pruned under a
mention being written for it: the writer waits for the prune and creates the row again, or
the prune waits for the writer and sees its mention. Lock-order deadlocks between the two
are retried. SQLite serialises writers (BEGIN IMMEDIATE), so there the same statements are
simply sequential.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import ColumnElement, Select, delete, exists, insert, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from core.statuses import ParseStatus
from storage.db.engine import Database
from storage.db.models import (
    Chunk,
    GraphEntity,
    GraphMention,
    GraphRelation,
    GraphRelationSource,
    Knowledge,
    new_id,
    utcnow,
)
from storage.db.models.graph import (
    ENTITY_NAME_MAX_CHARS,
    ENTITY_TYPE_MAX_CHARS,
    RELATION_TYPE_MAX_CHARS,
)
from storage.db.sql import dialect_insert
from storage.graph.names import normalize_name
from storage.graph.store import ChunkExtraction

log = logging.getLogger(__name__)

T = TypeVar("T")

# PostgreSQL's deadlock_detected and serialization_failure: the transaction is rolled back
# whole and may simply run again.
_RETRYABLE_SQLSTATES = {"40P01", "40001"}
_TRANSACTION_TRIES = 5
# Rounds of create-then-read for merge keys a concurrent prune removed in between.
_UPSERT_ROUNDS = 5

EntityKey = tuple[str, str]  # (normalised name, type)
RelationKey = tuple[str, str, str]  # (source entity id, target entity id, relation type)


@dataclass
class _EntityRow:
    name: str
    description: str


@dataclass
class _RelationRow:
    description: str
    weight: float


class SqlGraphWrites:
    def __init__(self, db: Database) -> None:
        self._db = db

    def write_chunk(
        self,
        tenant_id: str,
        knowledge_base_id: str,
        knowledge_id: str,
        attempt: int,
        extraction: ChunkExtraction,
        *,
        chunk_revision: int | None = None,
    ) -> bool:
        """See GraphStore.write_chunk. A relation is kept only when both of its ends are
        among the chunk's entities (by normalised name); a name found with two types in
        one chunk resolves to its first."""
        entities = _entities_of(extraction)
        # A shared lock: chunks of one knowledge are written side by side, while a status
        # change of the row (a newer round, a cancel, a delete, a chunk edit) waits for them
        # to commit.
        guard = _write_guard(knowledge_id, attempt, extraction.chunk_id, chunk_revision)

        def write(session: Session) -> bool:
            if session.scalar(guard) is None:
                return False
            chunk = extraction.chunk_id
            old_entities = session.scalars(
                delete(GraphMention)
                .where(GraphMention.knowledge_id == knowledge_id, GraphMention.chunk_id == chunk)
                .returning(GraphMention.entity_id)
            ).all()
            old_relations = session.scalars(
                delete(GraphRelationSource)
                .where(
                    GraphRelationSource.knowledge_id == knowledge_id,
                    GraphRelationSource.chunk_id == chunk,
                )
                .returning(GraphRelationSource.relation_id)
            ).all()
            entity_ids = self._upsert_entities(session, tenant_id, knowledge_base_id, entities)
            if entities:
                session.execute(
                    insert(GraphMention),
                    [
                        {
                            "id": new_id(),
                            "entity_id": entity_ids[key],
                            "knowledge_id": knowledge_id,
                            "attempt": attempt,
                            "chunk_id": chunk,
                            "description": row.description,
                        }
                        for key, row in entities.items()
                    ],
                )
            relations = _relations_of(extraction, entities, entity_ids)
            relation_ids = self._upsert_relations(session, tenant_id, knowledge_base_id, relations)
            if relations:
                session.execute(
                    insert(GraphRelationSource),
                    [
                        {
                            "id": new_id(),
                            "relation_id": relation_ids[key],
                            "knowledge_id": knowledge_id,
                            "attempt": attempt,
                            "chunk_id": chunk,
                            "description": row.description,
                            "weight": row.weight,
                        }
                        for key, row in relations.items()
                    ],
                )
            _prune(
                session,
                set(old_entities) - set(entity_ids.values()),
                set(old_relations) - set(relation_ids.values()),
            )
            return True

        return self._transaction(write)

    def remove_rounds(self, knowledge_id: str, attempt: int, *, and_older: bool = False) -> int:
        """See GraphStore.remove_rounds."""
        mention_round = (
            GraphMention.attempt <= attempt if and_older else GraphMention.attempt == attempt
        )
        source_round = (
            GraphRelationSource.attempt <= attempt
            if and_older
            else GraphRelationSource.attempt == attempt
        )
        return self._remove(
            (GraphMention.knowledge_id == knowledge_id) & mention_round,
            (GraphRelationSource.knowledge_id == knowledge_id) & source_round,
        )

    def remove_chunks(
        self, knowledge_id: str, chunk_ids: Sequence[str], *, content_revision: int | None = None
    ) -> int:
        """See GraphStore.remove_chunks."""
        if not chunk_ids:
            return 0
        ids = list(chunk_ids)
        if content_revision is not None:
            # Shared-locked: a later edit of the chunk waits for this removal, or it sees
            # the later revision and leaves the chunk to that edit's own removal.
            at_revision = (
                select(Chunk.id)
                .where(
                    Chunk.knowledge_id == knowledge_id,
                    Chunk.id.in_(ids),
                    Chunk.content_revision == content_revision,
                )
                .with_for_update(read=True)
            )
        return self._remove(
            (GraphMention.knowledge_id == knowledge_id) & GraphMention.chunk_id.in_(ids),
            (GraphRelationSource.knowledge_id == knowledge_id)
            & GraphRelationSource.chunk_id.in_(ids),
            only=at_revision if content_revision is not None else None,
        )

    def remove_knowledges(self, knowledge_ids: Sequence[str]) -> int:
        """See GraphStore.remove_knowledges."""
        if not knowledge_ids:
            return 0
        ids = list(knowledge_ids)
        return self._remove(
            GraphMention.knowledge_id.in_(ids), GraphRelationSource.knowledge_id.in_(ids)
        )

    # ── internals ───────────────────────────────────────────────────────────────────────

    def _remove(
        self,
        mentions: ColumnElement[bool],
        sources: ColumnElement[bool],
        *,
        only: Select[str] | None = None,
    ) -> int:
        """Remove the mentions and sources matching; with ``only``, of the chunks it selects
        (in the same transaction)."""

        def remove(session: Session) -> int:
            nonlocal mentions, sources
            if only is not None:
                chosen = list(session.scalars(only))
                mentions = mentions & GraphMention.chunk_id.in_(chosen)
                sources = sources & GraphRelationSource.chunk_id.in_(chosen)
            # RETURNING names exactly what went, even with a writer of the same round
            # adding rows meanwhile.
            entity_ids = session.scalars(
                delete(GraphMention).where(mentions).returning(GraphMention.entity_id)
            ).all()
            relation_ids = session.scalars(
                delete(GraphRelationSource)
                .where(sources)
                .returning(GraphRelationSource.relation_id)
            ).all()
            _prune(session, set(entity_ids), set(relation_ids))
            return len(entity_ids) + len(relation_ids)

        return self._transaction(remove)

    def _transaction(self, work: Callable[[Session], T]) -> T:
        for tries_left in range(_TRANSACTION_TRIES - 1, -1, -1):
            try:
                with self._db.session() as session:
                    return work(session)
            except DBAPIError as error:
                if tries_left == 0 or _sqlstate(error) not in _RETRYABLE_SQLSTATES:
                    raise
                log.info("graph write retried after %s", _sqlstate(error))
        raise AssertionError("unreachable")

    def _upsert_entities(
        self,
        session: Session,
        tenant_id: str,
        knowledge_base_id: str,
        entities: dict[EntityKey, _EntityRow],
    ) -> dict[EntityKey, str]:
        if not entities:
            return {}
        names = sorted({name for name, _ in entities})

        def insert(missing: Collection[EntityKey]) -> None:
            now = utcnow()
            session.execute(
                # Executemany of one cached statement, not a VALUES list compiled anew.
                dialect_insert(self._db.dialect_name, GraphEntity).on_conflict_do_nothing(),
                [
                    {
                        "id": new_id(),
                        "tenant_id": tenant_id,
                        "knowledge_base_id": knowledge_base_id,
                        "normalized_name": key[0],
                        "type": key[1],
                        "name": entities[key].name,
                        "description": entities[key].description,
                        "created_at": now,
                    }
                    # One order for every writer: concurrent inserts of the same keys
                    # wait for each other instead of deadlocking.
                    for key in sorted(missing)
                ],
            )

        # FOR KEY SHARE (what a foreign key to the row takes): only a prune conflicts.
        read = (
            select(GraphEntity.normalized_name, GraphEntity.type, GraphEntity.id)
            .where(
                GraphEntity.knowledge_base_id == knowledge_base_id,
                GraphEntity.normalized_name.in_(names),
            )
            .order_by(GraphEntity.id)
            .with_for_update(read=True, key_share=True)
        )
        return _create_and_read(
            entities.keys(), insert, lambda: {(n, t): i for n, t, i in session.execute(read)}
        )

    def _upsert_relations(
        self,
        session: Session,
        tenant_id: str,
        knowledge_base_id: str,
        relations: dict[RelationKey, _RelationRow],
    ) -> dict[RelationKey, str]:
        if not relations:
            return {}
        sources = sorted({source for source, _, _ in relations})
        targets = sorted({target for _, target, _ in relations})

        def insert(missing: Collection[RelationKey]) -> None:
            now = utcnow()
            session.execute(
                # Executemany of one cached statement, not a VALUES list compiled anew.
                dialect_insert(self._db.dialect_name, GraphRelation).on_conflict_do_nothing(),
                [
                    {
                        "id": new_id(),
                        "tenant_id": tenant_id,
                        "knowledge_base_id": knowledge_base_id,
                        "source_entity_id": key[0],
                        "target_entity_id": key[1],
                        "relation": key[2],
                        "description": relations[key].description,
                        "created_at": now,
                    }
                    for key in sorted(missing)
                ],
            )

        read = (
            select(
                GraphRelation.source_entity_id,
                GraphRelation.target_entity_id,
                GraphRelation.relation,
                GraphRelation.id,
            )
            .where(
                GraphRelation.source_entity_id.in_(sources),
                GraphRelation.target_entity_id.in_(targets),
            )
            .order_by(GraphRelation.id)
            .with_for_update(read=True, key_share=True)
        )
        return _create_and_read(
            relations.keys(),
            insert,
            lambda: {(s, t, r): i for s, t, r, i in session.execute(read)},
        )


def _write_guard(
    knowledge_id: str, attempt: int, chunk_id: str, chunk_revision: int | None
) -> Select[str]:
    """The knowledge's row, shared-locked, while a write of its chunk is due: finalizing at
    ``attempt`` (a round's extraction), or with ``chunk_revision`` completed at ``attempt``
    with the chunk still at that content revision (a re-extraction after an edit; the chunk's
    row is locked too, so an edit waits for the write or the write sees the edit)."""
    if chunk_revision is None:
        return (
            select(Knowledge.id)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.attempt == attempt,
                Knowledge.parse_status == ParseStatus.FINALIZING,
            )
            .with_for_update(read=True)
        )
    return (
        select(Knowledge.id)
        .join(Chunk, Chunk.knowledge_id == Knowledge.id)
        .where(
            Knowledge.id == knowledge_id,
            Knowledge.attempt == attempt,
            Knowledge.parse_status == ParseStatus.COMPLETED,
            Chunk.id == chunk_id,
            Chunk.attempt == attempt,
            Chunk.content_revision == chunk_revision,
        )
        .with_for_update(read=True)
    )


def _create_and_read(
    keys: Iterable[T],
    insert: Callable[[Collection[T]], None],
    read: Callable[[], dict[T, str]],
) -> dict[T, str]:
    """The ids of ``keys``: the missing ones created (a concurrent writer's row wins), then
    read back; again for any a concurrent prune removed in between."""
    wanted = set(keys)
    found: dict[T, str] = {}
    for _ in range(_UPSERT_ROUNDS):
        missing = wanted - found.keys()
        if not missing:
            return found
        insert(missing)
        found.update((key, id_) for key, id_ in read().items() if key in wanted)
    if wanted - found.keys():
        raise RuntimeError(f"graph rows kept vanishing while being merged: {wanted - found.keys()}")
    return found


def _prune(session: Session, entity_ids: set[str], relation_ids: set[str]) -> None:
    """Relations with no source and entities with no mention left, among the candidates:
    locked first, then checked by a statement that sees every write committed meanwhile."""
    if relation_ids:
        locked = session.scalars(
            select(GraphRelation.id)
            .where(GraphRelation.id.in_(sorted(relation_ids)))
            .order_by(GraphRelation.id)
            .with_for_update()
        ).all()
        orphan = ~exists().where(GraphRelationSource.relation_id == GraphRelation.id)
        session.execute(delete(GraphRelation).where(GraphRelation.id.in_(locked), orphan))
    if entity_ids:
        locked = session.scalars(
            select(GraphEntity.id)
            .where(GraphEntity.id.in_(sorted(entity_ids)))
            .order_by(GraphEntity.id)
            .with_for_update()
        ).all()
        orphan = ~exists().where(GraphMention.entity_id == GraphEntity.id)
        # Their relations go by cascade (a relation's sources mention both its ends).
        session.execute(delete(GraphEntity).where(GraphEntity.id.in_(locked), orphan))


def _entities_of(extraction: ChunkExtraction) -> dict[EntityKey, _EntityRow]:
    """The chunk's entities by merge key, each once (the first name and description)."""
    entities: dict[EntityKey, _EntityRow] = {}
    for entity in extraction.entities:
        name = " ".join(entity.name.split())[:ENTITY_NAME_MAX_CHARS]
        key = (normalize_name(entity.name), entity.type.strip()[:ENTITY_TYPE_MAX_CHARS])
        if not key[0]:
            continue
        row = entities.setdefault(key, _EntityRow(name, entity.description.strip()))
        if not row.description:
            row.description = entity.description.strip()
    return entities


def _relations_of(
    extraction: ChunkExtraction,
    entities: dict[EntityKey, _EntityRow],
    entity_ids: dict[EntityKey, str],
) -> dict[RelationKey, _RelationRow]:
    """The chunk's relations by merge key, their ends resolved to entity ids; one found
    twice keeps the first description and adds up its weights."""
    by_name: dict[str, str] = {}
    for key in entities:
        by_name.setdefault(key[0], entity_ids[key])
    relations: dict[RelationKey, _RelationRow] = {}
    for relation in extraction.relations:
        source = by_name.get(normalize_name(relation.source))
        target = by_name.get(normalize_name(relation.target))
        kind = " ".join(relation.relation.split())[:RELATION_TYPE_MAX_CHARS]
        if source is None or target is None or not kind:
            continue
        merge_key = (source, target, kind)
        row = relations.get(merge_key)
        if row is None:
            relations[merge_key] = _RelationRow(relation.description.strip(), relation.weight)
        else:
            row.weight += relation.weight
            row.description = row.description or relation.description.strip()
    return relations


def _sqlstate(error: DBAPIError) -> str | None:
    state = getattr(error.orig, "sqlstate", None)
    return state if isinstance(state, str) else None
