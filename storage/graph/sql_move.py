"""Moving a knowledge's part of the graph into another knowledge base (MoveKnowledge with
reuse_vectors): nothing is extracted again.

Entities and relations belong to a knowledge base, so the knowledge's mentions and relation
sources are re-pointed at the target's entities and relations with the same merge keys
(created when missing, merged as an extraction's write would), and what the source is then
left without any mention or source is pruned, all in one transaction. Running it again
finds the mentions pointing at the target already and changes nothing."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from storage.db.models import GraphEntity, GraphMention, GraphRelation, GraphRelationSource
from storage.graph.sql_writes import (
    EntityKey,
    RelationKey,
    SqlGraphWrites,
    _EntityRow,
    _prune,
    _RelationRow,
)


class SqlGraphMove(SqlGraphWrites):
    def move_knowledge(self, knowledge_id: str, tenant_id: str, target_kb_id: str) -> int:
        """See GraphStore.move_knowledge."""

        def move(session: Session) -> int:
            entity_of = self._move_mentions(session, knowledge_id, tenant_id, target_kb_id)
            moved_relations = self._move_sources(
                session, knowledge_id, tenant_id, target_kb_id, entity_of
            )
            _prune(session, set(entity_of), moved_relations)
            return len(entity_of)

        return self._transaction(move)

    def _move_mentions(
        self, session: Session, knowledge_id: str, tenant_id: str, target_kb_id: str
    ) -> dict[str, str]:
        """The knowledge's mentions re-pointed; old entity id → its target entity id."""
        rows = session.execute(
            select(
                GraphEntity.id,
                GraphEntity.normalized_name,
                GraphEntity.type,
                GraphEntity.name,
                GraphEntity.description,
            )
            .join(GraphMention, GraphMention.entity_id == GraphEntity.id)
            .where(GraphMention.knowledge_id == knowledge_id)
            .distinct()
        ).all()
        keys: dict[str, EntityKey] = {row[0]: (row[1], row[2]) for row in rows}
        wanted: dict[EntityKey, _EntityRow] = {}
        for _, name_key, kind, name, description in rows:
            wanted.setdefault((name_key, kind), _EntityRow(name, description))
        ids = self._upsert_entities(session, tenant_id, target_kb_id, wanted)
        entity_of = {old: ids[key] for old, key in keys.items()}
        for old, new in entity_of.items():
            if old != new:
                session.execute(
                    update(GraphMention)
                    .where(GraphMention.knowledge_id == knowledge_id, GraphMention.entity_id == old)
                    .values(entity_id=new)
                )
        return entity_of

    def _move_sources(
        self,
        session: Session,
        knowledge_id: str,
        tenant_id: str,
        target_kb_id: str,
        entity_of: dict[str, str],
    ) -> set[str]:
        """The knowledge's relation sources re-pointed; the relations they left."""
        rows = session.execute(
            select(
                GraphRelation.id,
                GraphRelation.source_entity_id,
                GraphRelation.target_entity_id,
                GraphRelation.relation,
                GraphRelation.description,
            )
            .join(GraphRelationSource, GraphRelationSource.relation_id == GraphRelation.id)
            .where(GraphRelationSource.knowledge_id == knowledge_id)
            .distinct()
        ).all()
        keys: dict[str, RelationKey] = {}
        wanted: dict[RelationKey, _RelationRow] = {}
        for relation_id, source, target, kind, description in rows:
            # Both ends are mentioned by the same chunk, so both are in entity_of.
            key = (entity_of.get(source, source), entity_of.get(target, target), kind)
            keys[relation_id] = key
            wanted.setdefault(key, _RelationRow(description, 1.0))
        ids = self._upsert_relations(session, tenant_id, target_kb_id, wanted)
        left: set[str] = set()
        for old, key in keys.items():
            if ids[key] != old:
                left.add(old)
                session.execute(
                    update(GraphRelationSource)
                    .where(
                        GraphRelationSource.knowledge_id == knowledge_id,
                        GraphRelationSource.relation_id == old,
                    )
                    .values(relation_id=ids[key])
                )
        return left
