"""Knowledge bases. ``tenant_id=None`` means an admin caller who may see every tenant."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, delete, func, inspect, select
from sqlalchemy.exc import IntegrityError

from core.statuses import KnowledgeBaseType, ParseStatus
from storage.db.engine import Database
from storage.db.errors import AlreadyExistsError
from storage.db.models import Knowledge, KnowledgeBase, utcnow
from storage.db.sql import affected_rows

KnowledgeBasePage = tuple[list[KnowledgeBase], int]

_UPDATABLE = frozenset(inspect(KnowledgeBase).column_attrs.keys()) - {
    "id",
    "tenant_id",
    "created_at",
    "updated_at",
}


def _scope(tenant_id: str | None, knowledge_base_id: str) -> list[ColumnElement[bool]]:
    conditions = [KnowledgeBase.id == knowledge_base_id]
    if tenant_id is not None:
        conditions.append(KnowledgeBase.tenant_id == tenant_id)
    return conditions


class KnowledgeBaseRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(
        self,
        tenant_id: str,
        name: str,
        *,
        description: str = "",
        type: str = KnowledgeBaseType.DOCUMENT,
        config: dict[str, Any] | None = None,
        embedding_model_key: str = "",
        storage_backend_id: str = "",
    ) -> KnowledgeBase:
        knowledge_base = KnowledgeBase(
            tenant_id=tenant_id,
            name=name,
            description=description,
            type=type,
            config=dict(config or {}),
            embedding_model_key=embedding_model_key,
            storage_backend_id=storage_backend_id,
        )
        try:
            with self._db.session() as session:
                session.add(knowledge_base)
        except IntegrityError:
            self._raise_if_name_taken(tenant_id, name)
            raise
        return knowledge_base

    def get(self, tenant_id: str | None, knowledge_base_id: str) -> KnowledgeBase | None:
        with self._db.session() as session:
            query = select(KnowledgeBase).where(*_scope(tenant_id, knowledge_base_id))
            return session.scalars(query).one_or_none()

    def of_tenant(self, tenant_id: str) -> list[KnowledgeBase]:
        with self._db.session() as session:
            query = select(KnowledgeBase).where(KnowledgeBase.tenant_id == tenant_id)
            return list(session.scalars(query))

    def list(self, tenant_id: str | None, limit: int = 50, offset: int = 0) -> KnowledgeBasePage:
        """Oldest first, so pages stay stable while new knowledge bases are added."""
        conditions = [] if tenant_id is None else [KnowledgeBase.tenant_id == tenant_id]
        query = (
            select(KnowledgeBase)
            .where(*conditions)
            .order_by(KnowledgeBase.created_at, KnowledgeBase.id)
            .limit(limit)
            .offset(offset)
        )
        with self._db.session() as session:
            total = session.scalar(
                select(func.count()).select_from(KnowledgeBase).where(*conditions)
            )
            return list(session.scalars(query)), total or 0

    def update(
        self, tenant_id: str | None, knowledge_base_id: str, **fields: Any
    ) -> KnowledgeBase | None:
        """Set ``fields`` and bump updated_at; None when there is no such knowledge base."""
        unknown = fields.keys() - _UPDATABLE
        if unknown:
            raise TypeError(f"fields not updatable: {sorted(unknown)}")
        owner = tenant_id
        try:
            with self._db.session() as session:
                query = select(KnowledgeBase).where(*_scope(tenant_id, knowledge_base_id))
                knowledge_base = session.scalars(query).one_or_none()
                if knowledge_base is None:
                    return None
                owner = knowledge_base.tenant_id
                for name, value in fields.items():
                    setattr(knowledge_base, name, value)
                knowledge_base.updated_at = utcnow()
        except IntegrityError:
            if "name" in fields and owner is not None:
                self._raise_if_name_taken(owner, fields["name"], other_than=knowledge_base_id)
            raise
        return knowledge_base

    def delete(self, tenant_id: str | None, knowledge_base_id: str) -> bool:
        """Delete the row; its knowledges, chunks, spans, tags… go with it (cascade)."""
        with self._db.session() as session:
            result = session.execute(
                delete(KnowledgeBase).where(*_scope(tenant_id, knowledge_base_id))
            )
            return affected_rows(result) > 0

    def count_knowledges(self, knowledge_base_id: str) -> int:
        """Knowledges that are not being deleted."""
        return self.count_knowledges_by_base([knowledge_base_id])[knowledge_base_id]

    def count_knowledges_by_base(self, knowledge_base_ids: Sequence[str]) -> dict[str, int]:
        counts = dict.fromkeys(knowledge_base_ids, 0)
        query = (
            select(Knowledge.knowledge_base_id, func.count())
            .where(
                Knowledge.knowledge_base_id.in_(counts),
                Knowledge.parse_status != ParseStatus.DELETING,
            )
            .group_by(Knowledge.knowledge_base_id)
        )
        with self._db.session() as session:
            for knowledge_base_id, count in session.execute(query):
                counts[knowledge_base_id] = count
        return counts

    def _raise_if_name_taken(self, tenant_id: str, name: str, other_than: str = "") -> None:
        query = select(KnowledgeBase.id).where(
            KnowledgeBase.tenant_id == tenant_id,
            KnowledgeBase.name == name,
            KnowledgeBase.id != other_than,
        )
        with self._db.session() as session:
            if session.scalar(query) is not None:
                raise AlreadyExistsError(f"knowledge base {name!r} already exists")
