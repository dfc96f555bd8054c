"""Tenants and API keys. Keys are stored only as sha256 hex; the plaintext is shown once."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy import delete, select, update

from storage.db.engine import Database
from storage.db.models import ApiKey, KbCloneJob, Tenant, utcnow
from storage.db.sql import affected_rows, dialect_insert

API_KEY_PREFIX = "sk-sluice-"


@dataclass(frozen=True, slots=True)
class ApiKeyIdentity:
    key_id: str
    tenant_id: str
    is_admin: bool


@dataclass(frozen=True, slots=True)
class NewApiKey:
    key_id: str
    key: str  # the plaintext


def hash_api_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class TenantRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create_tenant(self, name: str) -> Tenant:
        tenant = Tenant(name=name)
        with self._db.session() as session:
            session.add(tenant)
        return tenant

    def get_tenant(self, tenant_id: str) -> Tenant | None:
        with self._db.session() as session:
            return session.get(Tenant, tenant_id)

    def list_tenants(self) -> list[Tenant]:
        with self._db.session() as session:
            return list(session.scalars(select(Tenant).order_by(Tenant.created_at, Tenant.id)))

    def list_api_keys(self, tenant_id: str | None = None) -> list[ApiKey]:
        """Every key (revoked ones too), oldest first; of one tenant when it is given."""
        query = select(ApiKey).order_by(ApiKey.created_at, ApiKey.id)
        if tenant_id is not None:
            query = query.where(ApiKey.tenant_id == tenant_id)
        with self._db.session() as session:
            return list(session.scalars(query))

    def delete_tenant(self, tenant_id: str) -> bool:
        """Drop the tenant's row: its keys and knowledge bases (and with them everything
        they hold) go by cascade, its clone job records here. Its index rows, stored files
        and catalog records are not in this database's cascade: delete those first (see
        ``workers.lifecycle.tenant_deletion``)."""
        with self._db.session() as session:
            session.execute(delete(KbCloneJob).where(KbCloneJob.tenant_id == tenant_id))
            return affected_rows(session.execute(delete(Tenant).where(Tenant.id == tenant_id))) > 0

    def ensure_default_tenant(self, tenant_id: str, name: str) -> Tenant:
        """Create the tenant unless it exists; safe when several processes start at once."""
        statement = (
            dialect_insert(self._db.dialect_name, Tenant)
            .values(id=tenant_id, name=name, created_at=utcnow())
            .on_conflict_do_nothing(index_elements=[Tenant.id])
        )
        with self._db.session() as session:
            session.execute(statement)
            return session.scalars(select(Tenant).where(Tenant.id == tenant_id)).one()

    def create_api_key(self, tenant_id: str, name: str, is_admin: bool = False) -> NewApiKey:
        """Store a new key for the tenant and return its plaintext (the only time it exists)."""
        key = API_KEY_PREFIX + secrets.token_urlsafe(24)  # 24 bytes → 32 url-safe characters
        row = ApiKey(tenant_id=tenant_id, name=name, key_hash=hash_api_key(key), is_admin=is_admin)
        with self._db.session() as session:
            session.add(row)
        return NewApiKey(key_id=row.id, key=key)

    def resolve_api_key(self, key: str) -> ApiKeyIdentity | None:
        """The identity behind a plaintext key; None for unknown or revoked keys."""
        if not key.startswith(API_KEY_PREFIX):
            return None
        query = select(ApiKey).where(
            ApiKey.key_hash == hash_api_key(key), ApiKey.revoked_at.is_(None)
        )
        with self._db.session() as session:
            row = session.scalars(query).one_or_none()
        if row is None:
            return None
        return ApiKeyIdentity(key_id=row.id, tenant_id=row.tenant_id, is_admin=row.is_admin)

    def revoke_api_key(self, key_id: str) -> bool:
        """False when there is no such live key."""
        statement = (
            update(ApiKey)
            .where(ApiKey.id == key_id, ApiKey.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0

    def revoke_tenant_keys(self, tenant_id: str) -> int:
        statement = (
            update(ApiKey)
            .where(ApiKey.tenant_id == tenant_id, ApiKey.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement))

    def delete_api_key(self, key_id: str) -> bool:
        with self._db.session() as session:
            return affected_rows(session.execute(delete(ApiKey).where(ApiKey.id == key_id))) > 0
