"""The resource catalog's rows: which stored file each ``resource://{id}`` is, what owns it,
and whether it has been deleted (the catalog itself is ``storage.files.resource_catalog``).

A knowledge's files are bound to it under two owner types: its original (``KNOWLEDGE_ORIGINAL``)
and every image its docreader extracted (``KNOWLEDGE_IMAGE``), so a reparse can remove the
images alone and a delete can find them all, without parsing Markdown or chunk metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, Select, and_, delete, exists, or_, select, update
from sqlalchemy.orm import InstrumentedAttribute

from storage.db.engine import Database
from storage.db.models import Knowledge, StorageResource, utcnow
from storage.db.sql import affected_rows

# A knowledge's original file (the one its row's file_path refers to).
KNOWLEDGE_ORIGINAL = "knowledge"
# An image extracted from a knowledge.
KNOWLEDGE_IMAGE = "knowledge_image"
# Every file a knowledge owns.
KNOWLEDGE_FILES = (KNOWLEDGE_ORIGINAL, KNOWLEDGE_IMAGE)

# Where a page of records ended: the last one's (timestamp, id), in the page's order.
Position = tuple[datetime, str]


class StorageResourceRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def record(
        self,
        *,
        tenant_id: str,
        path: str,
        owner_type: str,
        owner_id: str,
        size: int,
        content_type: str = "",
        backend_id: str = "",
    ) -> StorageResource:
        resource = StorageResource(
            tenant_id=tenant_id,
            backend_id=backend_id,
            path=path,
            owner_type=owner_type,
            owner_id=owner_id,
            size=size,
            content_type=content_type,
        )
        with self._db.session() as session:
            session.add(resource)
        return resource

    def get(self, resource_id: str, tenant_id: str | None = None) -> StorageResource | None:
        """The record, if it is ``tenant_id``'s (None: any tenant's)."""
        query = select(StorageResource).where(StorageResource.id == resource_id)
        if tenant_id is not None:
            query = query.where(StorageResource.tenant_id == tenant_id)
        with self._db.session() as session:
            return session.scalars(query).one_or_none()

    def get_many(self, resource_ids: Sequence[str]) -> list[StorageResource]:
        """The rows of those ids that exist (deleted ones included), in one query."""
        if not resource_ids:
            return []
        query = select(StorageResource).where(StorageResource.id.in_(list(resource_ids)))
        with self._db.session() as session:
            return list(session.scalars(query))

    def owned_by(
        self, owner_types: Sequence[str], owner_ids: Sequence[str], *, include_deleted: bool
    ) -> list[StorageResource]:
        """The owners' resources, oldest first."""
        if not owner_ids or not owner_types:
            return []
        query = (
            select(StorageResource)
            .where(
                StorageResource.owner_type.in_(list(owner_types)),
                StorageResource.owner_id.in_(list(owner_ids)),
            )
            .order_by(StorageResource.created_at, StorageResource.id)
        )
        if not include_deleted:
            query = query.where(StorageResource.deleted_at.is_(None))
        with self._db.session() as session:
            return list(session.scalars(query))

    def of_tenant(self, tenant_id: str) -> list[StorageResource]:
        """Every record of the tenant, deleted ones too (deleting a tenant)."""
        query = select(StorageResource).where(StorageResource.tenant_id == tenant_id)
        with self._db.session() as session:
            return list(session.scalars(query))

    def paths_owned_by(self, owner_type: str, owner_ids: Sequence[str]) -> list[str]:
        return [r.path for r in self.owned_by((owner_type,), owner_ids, include_deleted=True)]

    def bind(self, resource_id: str, owner_type: str, owner_id: str) -> bool:
        """Give a live resource its owner; False when it is unknown or deleted."""
        return self._update_live(resource_id, owner_type=owner_type, owner_id=owner_id)

    def relocate(self, resource_id: str, backend_id: str, path: str) -> bool:
        """Point a live resource at another stored file; False when it is unknown or deleted."""
        return self._update_live(resource_id, backend_id=backend_id, path=path)

    def mark_deleted(
        self, owner_types: Sequence[str], owner_ids: Sequence[str], when: datetime | None = None
    ) -> int:
        """Mark the owners' live resources deleted (their rows stay, as tombstones)."""
        if not owner_ids or not owner_types:
            return 0
        statement = (
            update(StorageResource)
            .where(
                StorageResource.owner_type.in_(list(owner_types)),
                StorageResource.owner_id.in_(list(owner_ids)),
                StorageResource.deleted_at.is_(None),
            )
            .values(deleted_at=when or utcnow())
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement))

    def deleted_before(
        self,
        cutoff: datetime,
        limit: int,
        *,
        after: Position | None = None,
        skip_backends: Sequence[str] = (),
    ) -> list[StorageResource]:
        """Tombstones marked deleted at or before ``cutoff``, oldest first: the page after
        ``after`` (a previous page's last (deleted_at, id)), none on ``skip_backends``."""
        query = select(StorageResource).where(StorageResource.deleted_at <= cutoff)
        return self._page(query, StorageResource.deleted_at, limit, after, skip_backends)

    def orphaned_before(
        self,
        cutoff: datetime,
        limit: int,
        *,
        after: Position | None = None,
        skip_backends: Sequence[str] = (),
    ) -> list[StorageResource]:
        """Live records of knowledge files, created at or before ``cutoff``, whose knowledge
        row does not exist: left behind by a failure between storing a file and recording
        its knowledge. Oldest first, paged like ``deleted_before`` by (created_at, id)."""
        query = select(StorageResource).where(
            StorageResource.deleted_at.is_(None),
            StorageResource.owner_type.in_(KNOWLEDGE_FILES),
            StorageResource.created_at <= cutoff,
            ~exists().where(Knowledge.id == StorageResource.owner_id),
        )
        return self._page(query, StorageResource.created_at, limit, after, skip_backends)

    def forget(self, owner_type: str, owner_ids: Sequence[str], paths: Sequence[str]) -> int:
        """Drop the records of ``paths`` owned by ``owner_ids`` (once their files are gone);
        their access grants go with them."""
        if not owner_ids or not paths:
            return 0
        statement = delete(StorageResource).where(
            StorageResource.owner_type == owner_type,
            StorageResource.owner_id.in_(list(owner_ids)),
            StorageResource.path.in_(list(paths)),
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement))

    def forget_ids(self, resource_ids: Sequence[str]) -> int:
        if not resource_ids:
            return 0
        statement = delete(StorageResource).where(StorageResource.id.in_(list(resource_ids)))
        with self._db.session() as session:
            return affected_rows(session.execute(statement))

    def _page(
        self,
        query: Select[StorageResource],
        moment: InstrumentedAttribute[datetime] | InstrumentedAttribute[datetime | None],
        limit: int,
        after: Position | None,
        skip_backends: Sequence[str],
    ) -> list[StorageResource]:
        """``query``'s rows in (moment, id) order, from just after ``after``."""
        if after is not None:
            query = query.where(_past(moment, after))
        if skip_backends:
            query = query.where(StorageResource.backend_id.not_in(list(skip_backends)))
        query = query.order_by(moment, StorageResource.id).limit(limit)
        with self._db.session() as session:
            return list(session.scalars(query))

    def _update_live(self, resource_id: str, **values: str) -> bool:
        statement = (
            update(StorageResource)
            .where(StorageResource.id == resource_id, StorageResource.deleted_at.is_(None))
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0


def _past(
    moment: InstrumentedAttribute[datetime] | InstrumentedAttribute[datetime | None],
    after: Position,
) -> ColumnElement[bool]:
    at, resource_id = after
    return or_(moment > at, and_(moment == at, StorageResource.id > resource_id))
