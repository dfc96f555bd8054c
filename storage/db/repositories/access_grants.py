"""Access grant rows: a token's digest, the resource it opens and until when.

The rows hold digests, never tokens (see ``storage.files.access_grants``); a grant goes with
its resource (ON DELETE CASCADE) when the resource's record is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Select, delete, select
from sqlalchemy.exc import IntegrityError

from storage.db.engine import Database
from storage.db.models import AccessGrant, StorageResource
from storage.db.sql import affected_rows


class AccessGrantRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, token_digest: str, resource_id: str, expires_at: datetime) -> bool:
        """Record a grant; False when the resource's record is gone (forgotten since it was
        read: the foreign key refuses the row)."""
        grant = AccessGrant(token=token_digest, resource_id=resource_id, expires_at=expires_at)
        try:
            with self._db.session() as session:
                session.add(grant)
        except IntegrityError:
            # The digest of 256 random bits cannot collide: the resource is what is missing.
            return False
        return True

    def find(self, token_digest: str) -> tuple[AccessGrant, StorageResource] | None:
        """The grant and its resource, read together."""
        query = (
            select(AccessGrant, StorageResource)
            .join(StorageResource, StorageResource.id == AccessGrant.resource_id)
            .where(AccessGrant.token == token_digest)
        )
        with self._db.session() as session:
            row = session.execute(query).one_or_none()
        return None if row is None else (row[0], row[1])

    def revoke(self, token_digest: str, tenant_id: str | None) -> int:
        """Drop one grant, if it opens a resource of ``tenant_id`` (None: any tenant's)."""
        statement = delete(AccessGrant).where(
            AccessGrant.token == token_digest,
            AccessGrant.resource_id.in_(_resources_of(tenant_id)),
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement))

    def revoke_for_resources(self, resource_ids: Sequence[str], tenant_id: str | None) -> int:
        """Drop every grant to these resources that are ``tenant_id``'s (None: any tenant's)."""
        if not resource_ids:
            return 0
        statement = delete(AccessGrant).where(
            AccessGrant.resource_id.in_(list(resource_ids)),
            AccessGrant.resource_id.in_(_resources_of(tenant_id)),
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement))

    def purge_expired(self, now: datetime) -> int:
        statement = delete(AccessGrant).where(AccessGrant.expires_at <= now)
        with self._db.session() as session:
            return affected_rows(session.execute(statement))


def _resources_of(tenant_id: str | None) -> Select[str]:
    query = select(StorageResource.id)
    return query if tenant_id is None else query.where(StorageResource.tenant_id == tenant_id)
