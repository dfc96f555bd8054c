"""TenantRepository against real databases: API keys and the default tenant."""

from __future__ import annotations

import hashlib
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import select

from storage.db.engine import Database
from storage.db.models import ApiKey
from storage.db.repositories.tenants import TenantRepository


def test_api_key_is_returned_once_and_stored_as_sha256(database: Database) -> None:
    repo = TenantRepository(database)
    tenant = repo.create_tenant("acme")
    key = repo.create_api_key(tenant.id, "ci", is_admin=False).key

    assert key.startswith("sk-sluice-") and len(key) == len("sk-sluice-") + 32
    with database.session() as session:
        stored = session.scalars(select(ApiKey).where(ApiKey.tenant_id == tenant.id)).one()
    assert stored.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert key not in (stored.key_hash, stored.name)


def test_resolve_api_key(database: Database) -> None:
    repo = TenantRepository(database)
    tenant = repo.create_tenant("acme")
    user_key = repo.create_api_key(tenant.id, "user").key
    admin_key = repo.create_api_key(tenant.id, "admin", is_admin=True).key

    user = repo.resolve_api_key(user_key)
    admin = repo.resolve_api_key(admin_key)
    assert user is not None and (user.tenant_id, user.is_admin) == (tenant.id, False)
    assert admin is not None and (admin.tenant_id, admin.is_admin) == (tenant.id, True)
    assert repo.resolve_api_key(user_key + "x") is None
    assert repo.resolve_api_key("") is None


def test_revoked_keys_no_longer_resolve(database: Database) -> None:
    repo = TenantRepository(database)
    tenant = repo.create_tenant("acme")
    key = repo.create_api_key(tenant.id, "old").key
    identity = repo.resolve_api_key(key)
    assert identity is not None

    assert repo.revoke_api_key(identity.key_id)
    assert repo.resolve_api_key(key) is None
    assert not repo.revoke_api_key(identity.key_id)


def test_ensure_default_tenant_is_idempotent_and_race_safe(database: Database) -> None:
    repo = TenantRepository(database)
    tenant_id = f"default-{uuid.uuid4().hex[:12]}"
    barrier = threading.Barrier(6)

    def ensure(_: int) -> str:
        barrier.wait()
        return repo.ensure_default_tenant(tenant_id, "Default").name

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert list(pool.map(ensure, range(6))) == ["Default"] * 6

    # An existing tenant keeps its name.
    assert repo.ensure_default_tenant(tenant_id, "Renamed").name == "Default"
    tenant = repo.get_tenant(tenant_id)
    assert tenant is not None and tenant.name == "Default"
