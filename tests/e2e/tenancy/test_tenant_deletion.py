"""Deleting a tenant with the admin tool leaves nothing of it: no row in any table, no
stored file, no index row, no working key or access grant; other tenants keep theirs."""

from __future__ import annotations

import pytest
from pymilvus import MilvusClient
from sluice_client import PermissionDenied, SluiceClient, Unauthenticated
from sqlalchemy import func, select

from storage.db.engine import Database
from storage.db.models import AccessGrant, ApiKey, Base, StorageResource, Tenant
from tests.e2e.lifecycle_support import stored_files
from tests.e2e.tenancy.conftest import Deployment, TenantData, admin, tenant_with_data


def _rows_of(deployment: Deployment, tenant_id: str) -> dict[str, int]:
    """Rows of the tenant per table: every table with a tenant_id column, plus its own row
    and the grants to its resources."""
    db = Database.from_url(deployment.stack.env["SLUICE_DATABASE_URL"])
    try:
        with db.session() as session:
            counts = {
                table.name: session.scalar(
                    select(func.count()).select_from(table).where(table.c.tenant_id == tenant_id)
                )
                or 0
                for table in Base.metadata.sorted_tables
                if "tenant_id" in table.c
            }
            counts["tenants"] = (
                session.scalar(
                    select(func.count()).select_from(Tenant).where(Tenant.id == tenant_id)
                )
                or 0
            )
            counts["access_grants"] = (
                session.scalar(
                    select(func.count())
                    .select_from(AccessGrant)
                    .join(StorageResource, StorageResource.id == AccessGrant.resource_id)
                    .where(StorageResource.tenant_id == tenant_id)
                )
                or 0
            )
    finally:
        db.dispose()
    return counts


def _index_rows_of(deployment: Deployment, tenant_id: str) -> int:
    client = MilvusClient(deployment.stack.env["SLUICE_MILVUS_URI"])
    try:
        total = 0
        for name in client.list_collections():
            client.load_collection(name)
            found = client.query(
                name, filter=f'tenant_id == "{tenant_id}"', output_fields=["count(*)"]
            )
            total += int(found[0]["count(*)"])
        return total
    finally:
        client.close()


def _files_of(deployment: Deployment, tenant_id: str) -> set[str]:
    return {str(p) for p in stored_files(deployment.stack) if tenant_id in p.parts}


def test_deleting_a_tenant_removes_its_files_rows_grants_and_index_rows(
    deployment: Deployment,
) -> None:
    doomed = tenant_with_data(deployment, "frank")
    kept = tenant_with_data(deployment, "grace")
    for tenant in (doomed, kept):
        rows = _rows_of(deployment, tenant.key.tenant_id)
        # A document, and the one knowledge of the tenant's FAQ knowledge base.
        assert rows["knowledges"] == 2 and rows["chunks"] > 0 and rows["access_grants"] == 1
        assert rows[ApiKey.__tablename__] == 1 and rows["storage_resources"] == 2
        assert _index_rows_of(deployment, tenant.key.tenant_id) > 0
        assert len(_files_of(deployment, tenant.key.tenant_id)) == 2

    deleted = admin(deployment.stack, "delete-tenant", doomed.key.tenant_id)
    assert deleted.returncode == 0, deleted.stderr
    assert "2 knowledges, 2 files" in deleted.stdout

    assert set(_rows_of(deployment, doomed.key.tenant_id).values()) == {0}
    assert _index_rows_of(deployment, doomed.key.tenant_id) == 0
    assert _files_of(deployment, doomed.key.tenant_id) == set()
    for target in deployment.targets:
        with (
            SluiceClient(target, api_key=doomed.key.key) as client,
            pytest.raises(Unauthenticated),
        ):
            list(client.list_knowledge_bases())
        with SluiceClient(target, api_key=kept.key.key) as client, pytest.raises(PermissionDenied):
            list(client.read_resource(doomed.token))
    _still_whole(deployment, kept)
    again = admin(deployment.stack, "delete-tenant", doomed.key.tenant_id)
    assert again.returncode == 1 and "no tenant" in again.stderr


def _still_whole(deployment: Deployment, kept: TenantData) -> None:
    rows = _rows_of(deployment, kept.key.tenant_id)
    assert rows["knowledges"] == 2 and rows["access_grants"] == 1
    assert _index_rows_of(deployment, kept.key.tenant_id) > 0
    assert len(_files_of(deployment, kept.key.tenant_id)) == 2
    with SluiceClient(deployment.targets[1], api_key=kept.key.key) as client:
        hits = client.search("gauges", [kept.kb_id])
        assert {hit.knowledge_id for hit in hits} == {kept.knowledge_id}
        meta = next(iter(client.read_resource(kept.token))).meta
        assert meta is not None and meta.ref == kept.original_ref
