"""Reading the knowledge graph on SQL: entities by name or type, one entity, its
neighbourhood, the chunks behind a relation, and the chunks search hits lead to.

Walks go breadth-first with one query per level over the relations touching the level's
entities, so a walk costs ``depth`` queries whatever the graph's shape, and stop at their
limits. Every read is scoped to the knowledge bases it is given (the caller's tenancy)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from sqlalchemy import ColumnElement, Row, Select, distinct, func, or_, select
from sqlalchemy.orm import Session

from storage.db.engine import Database
from storage.db.models import GraphEntity, GraphMention, GraphRelation, GraphRelationSource
from storage.graph.names import normalize_name
from storage.graph.store import Entity, Neighbourhood, RelatedChunk, Relation, RelationSource

# How many mentions a related_chunks read looks at per result it may return: enough to rank
# by how many entities a chunk shares with the hits, bounded for entities everything mentions.
_MENTIONS_PER_RESULT = 50


class SqlGraphReads:
    def __init__(self, db: Database) -> None:
        self._db = db

    def find_entities(
        self,
        knowledge_base_ids: Sequence[str],
        *,
        name: str = "",
        type: str = "",
        limit: int,
        offset: int = 0,
    ) -> list[Entity]:
        """See GraphStore.find_entities; ties in mentions go by name, then id (a stable
        order for paging)."""
        if not knowledge_base_ids or limit <= 0:
            return []
        statement = _entities(knowledge_base_ids).where(*_filters(name, type))
        statement = (
            statement.order_by(
                _CHUNKS.desc(), GraphEntity.normalized_name, GraphEntity.type, GraphEntity.id
            )
            .limit(limit)
            .offset(offset)
        )
        with self._db.session() as session:
            return [_entity(row) for row in session.execute(statement)]

    def count_entities(
        self, knowledge_base_ids: Sequence[str], *, name: str = "", type: str = ""
    ) -> int:
        if not knowledge_base_ids:
            return 0
        statement = select(func.count(GraphEntity.id)).where(
            GraphEntity.knowledge_base_id.in_(list(knowledge_base_ids)), *_filters(name, type)
        )
        with self._db.session() as session:
            return session.scalar(statement) or 0

    def get_entity(self, knowledge_base_ids: Sequence[str], entity_id: str) -> Entity | None:
        with self._db.session() as session:
            found = _load_entities(session, knowledge_base_ids, [entity_id])
        return found.get(entity_id)

    def entity_knowledge_base(self, entity_id: str) -> str | None:
        statement = select(GraphEntity.knowledge_base_id).where(GraphEntity.id == entity_id)
        with self._db.session() as session:
            return session.scalar(statement)

    def relation_knowledge_base(self, relation_id: str) -> str | None:
        statement = select(GraphRelation.knowledge_base_id).where(GraphRelation.id == relation_id)
        with self._db.session() as session:
            return session.scalar(statement)

    def neighbourhood(
        self, knowledge_base_ids: Sequence[str], entity_id: str, *, depth: int, limit: int
    ) -> Neighbourhood | None:
        """See GraphStore.neighbourhood. ``limit`` counts the entities around the center;
        when a level reaches more than fit, those behind the heaviest relations are kept.
        Relations are those walked: between the center's side of a level and the next."""
        with self._db.session() as session:
            center = _load_entities(session, knowledge_base_ids, [entity_id]).get(entity_id)
            if center is None:
                return None
            seen = {entity_id}
            frontier = {entity_id}
            relations: dict[str, Relation] = {}
            truncated = False
            for _ in range(depth):
                if not frontier:
                    break
                touching = or_(
                    GraphRelation.source_entity_id.in_(sorted(frontier)),
                    GraphRelation.target_entity_id.in_(sorted(frontier)),
                )
                reached: set[str] = set()
                for relation in _load_relations(session, knowledge_base_ids, touching):
                    ends = {relation.source_id, relation.target_id}
                    new = ends - seen - reached
                    if len(seen) - 1 + len(reached) + len(new) > limit:
                        truncated = True
                        continue
                    reached |= new
                    relations.setdefault(relation.id, relation)
                seen |= reached
                frontier = reached
            others = _load_entities(session, knowledge_base_ids, sorted(seen - {entity_id}))
        entities = sorted(others.values(), key=lambda e: (-e.chunk_count, e.name, e.id))
        return Neighbourhood(center, entities, list(relations.values()), truncated)

    def get_relation(self, knowledge_base_ids: Sequence[str], relation_id: str) -> Relation | None:
        with self._db.session() as session:
            found = _load_relations(session, knowledge_base_ids, GraphRelation.id == relation_id)
        return found[0] if found else None

    def relation_sources(
        self, knowledge_base_ids: Sequence[str], relation_id: str
    ) -> list[RelationSource] | None:
        relation = select(GraphRelation.id).where(
            GraphRelation.id == relation_id,
            GraphRelation.knowledge_base_id.in_(list(knowledge_base_ids)),
        )
        sources = (
            select(
                GraphRelationSource.chunk_id,
                GraphRelationSource.knowledge_id,
                GraphRelationSource.description,
            )
            .where(GraphRelationSource.relation_id == relation_id)
            .order_by(GraphRelationSource.knowledge_id, GraphRelationSource.chunk_id)
        )
        with self._db.session() as session:
            if session.scalar(relation) is None:
                return None
            return [RelationSource(*row) for row in session.execute(sources)]

    def related_chunks(
        self,
        knowledge_base_ids: Sequence[str],
        chunk_ids: Sequence[str],
        *,
        hops: int,
        limit: int,
    ) -> list[RelatedChunk]:
        """See GraphStore.related_chunks. Ranked by hops, then by how many of the reached
        entities the chunk mentions, then by chunk id; ``via_entity_ids`` are the reached
        entities it mentions at its nearest hop."""
        if not knowledge_base_ids or not chunk_ids or limit <= 0:
            return []
        kbs = list(knowledge_base_ids)
        seeds = (
            select(GraphMention.entity_id)
            .distinct()
            .join(GraphEntity, GraphEntity.id == GraphMention.entity_id)
            .where(
                GraphMention.chunk_id.in_(list(chunk_ids)),
                GraphEntity.knowledge_base_id.in_(kbs),
            )
        )
        with self._db.session() as session:
            distance = {entity: 0 for entity in session.scalars(seeds)}
            frontier = set(distance)
            for hop in range(1, hops + 1):
                if not frontier:
                    break
                ends = session.execute(
                    select(GraphRelation.source_entity_id, GraphRelation.target_entity_id).where(
                        GraphRelation.knowledge_base_id.in_(kbs),
                        or_(
                            GraphRelation.source_entity_id.in_(sorted(frontier)),
                            GraphRelation.target_entity_id.in_(sorted(frontier)),
                        ),
                    )
                ).all()
                frontier = {end for pair in ends for end in pair} - distance.keys()
                distance.update(dict.fromkeys(frontier, hop))
            if not distance:
                return []
            mentions = session.execute(
                select(GraphMention.chunk_id, GraphMention.knowledge_id, GraphMention.entity_id)
                .where(
                    GraphMention.entity_id.in_(sorted(distance)),
                    GraphMention.chunk_id.not_in(list(chunk_ids)),
                )
                .order_by(GraphMention.chunk_id)
                .limit(limit * _MENTIONS_PER_RESULT)
            ).all()
        return _rank(mentions, distance)[:limit]

    def entity_counts(self, knowledge_base_id: str) -> Mapping[str, int]:
        entities = select(func.count()).where(GraphEntity.knowledge_base_id == knowledge_base_id)
        relations = select(func.count()).where(GraphRelation.knowledge_base_id == knowledge_base_id)
        with self._db.session() as session:
            return {
                "entities": session.scalar(entities.select_from(GraphEntity)) or 0,
                "relations": session.scalar(relations.select_from(GraphRelation)) or 0,
            }


_CHUNKS = func.count(GraphMention.id)
_KNOWLEDGES = func.count(distinct(GraphMention.knowledge_id))


def _filters(name: str, type: str) -> list[ColumnElement[bool]]:
    """Name contains ``name`` (both normalised), type is ``type``; empty: any."""
    filters = []
    wanted = normalize_name(name)
    if wanted:
        filters.append(GraphEntity.normalized_name.contains(wanted, autoescape=True))
    if type:
        filters.append(GraphEntity.type == type)
    return filters


def _entities(knowledge_base_ids: Iterable[str]) -> Select[GraphEntity, int, int]:
    """Entities of the knowledge bases with their mention counts."""
    return (
        select(GraphEntity, _CHUNKS, _KNOWLEDGES)
        .outerjoin(GraphMention, GraphMention.entity_id == GraphEntity.id)
        .where(GraphEntity.knowledge_base_id.in_(list(knowledge_base_ids)))
        .group_by(GraphEntity.id)
    )


def _entity(row: Row[GraphEntity, int, int]) -> Entity:
    entity, chunks, knowledges = row
    return Entity(
        id=entity.id,
        knowledge_base_id=entity.knowledge_base_id,
        name=entity.name,
        type=entity.type,
        description=entity.description,
        chunk_count=chunks,
        knowledge_count=knowledges,
    )


def _load_entities(
    session: Session, knowledge_base_ids: Sequence[str], ids: Sequence[str]
) -> dict[str, Entity]:
    if not ids:
        return {}
    statement = _entities(knowledge_base_ids).where(GraphEntity.id.in_(list(ids)))
    return {entity.id: entity for entity in map(_entity, session.execute(statement))}


def _load_relations(
    session: Session, knowledge_base_ids: Sequence[str], where: ColumnElement[bool]
) -> list[Relation]:
    """Relations matching ``where`` with their summed weights, heaviest first."""
    weight = func.coalesce(func.sum(GraphRelationSource.weight), 0.0)
    statement = (
        select(GraphRelation, weight, func.count(GraphRelationSource.id))
        .outerjoin(GraphRelationSource, GraphRelationSource.relation_id == GraphRelation.id)
        .where(GraphRelation.knowledge_base_id.in_(list(knowledge_base_ids)), where)
        .group_by(GraphRelation.id)
        .order_by(weight.desc(), GraphRelation.id)
    )
    return [
        Relation(
            id=relation.id,
            knowledge_base_id=relation.knowledge_base_id,
            source_id=relation.source_entity_id,
            target_id=relation.target_entity_id,
            relation=relation.relation,
            description=relation.description,
            weight=float(total),
            source_count=count,
        )
        for relation, total, count in session.execute(statement)
    ]


def _rank(
    mentions: Iterable[Row[str, str, str]], distance: Mapping[str, int]
) -> list[RelatedChunk]:
    nearest: dict[str, tuple[str, int, list[str]]] = {}
    for chunk_id, knowledge_id, entity_id in mentions:
        hops = distance[entity_id]
        known = nearest.get(chunk_id)
        if known is None or hops < known[1]:
            nearest[chunk_id] = (knowledge_id, hops, [entity_id])
        elif hops == known[1]:
            known[2].append(entity_id)
    ranked = sorted(nearest.items(), key=lambda item: (item[1][1], -len(item[1][2]), item[0]))
    return [
        RelatedChunk(chunk_id, knowledge_id, hops, tuple(sorted(via)))
        for chunk_id, (knowledge_id, hops, via) in ranked
    ]
