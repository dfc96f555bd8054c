"""The resource catalog rows that record which stored files belong to what.

Files a knowledge produces besides its original (the images its docreader extracted) are
recorded here as they are stored, bound to their owner, so they can all be found and
removed later without parsing Markdown or chunk metadata.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select

from storage.db.engine import Database
from storage.db.models import StorageResource
from storage.db.sql import affected_rows

# An image extracted from a knowledge (its original file is on the knowledge row itself).
KNOWLEDGE_IMAGE = "knowledge_image"


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
    ) -> StorageResource:
        resource = StorageResource(
            tenant_id=tenant_id,
            path=path,
            owner_type=owner_type,
            owner_id=owner_id,
            size=size,
            content_type=content_type,
        )
        with self._db.session() as session:
            session.add(resource)
        return resource

    def paths_owned_by(self, owner_type: str, owner_ids: Sequence[str]) -> list[str]:
        if not owner_ids:
            return []
        query = (
            select(StorageResource.path)
            .where(
                StorageResource.owner_type == owner_type,
                StorageResource.owner_id.in_(list(owner_ids)),
            )
            .order_by(StorageResource.created_at, StorageResource.id)
        )
        with self._db.session() as session:
            return list(session.scalars(query))

    def forget(self, owner_type: str, owner_ids: Sequence[str], paths: Sequence[str]) -> int:
        """Drop the records of ``paths`` owned by ``owner_ids`` (once their files are gone)."""
        if not owner_ids or not paths:
            return 0
        statement = delete(StorageResource).where(
            StorageResource.owner_type == owner_type,
            StorageResource.owner_id.in_(list(owner_ids)),
            StorageResource.path.in_(list(paths)),
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement))
