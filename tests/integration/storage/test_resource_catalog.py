"""The resource catalog on PostgreSQL and SQLite, over two real local storage backends:
references, owners, deletion marks, relocation, and access grants."""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from core.clock import ManualClock
from storage.db.engine import Database
from storage.db.models import AccessGrant, utcnow
from storage.db.repositories.access_grants import AccessGrantRepository
from storage.db.repositories.resources import (
    KNOWLEDGE_FILES,
    KNOWLEDGE_IMAGE,
    KNOWLEDGE_ORIGINAL,
    StorageResourceRepository,
)
from storage.files.access_grants import GrantRefusal, GrantRefused
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.backends import LocalBackendSpec, build_file_service
from storage.files.base import FileNotFoundInStorage
from storage.files.resource_catalog import (
    DeletedResource,
    ResourceCatalog,
    UnknownResource,
    is_resource_ref,
)
from tests.integration.storage.conftest import Scope

PDF = b"%PDF-1.4 the original " * 100


@pytest.fixture
def files(tmp_path: Path) -> BackendScopedFileService:
    specs = {
        "disk": LocalBackendSpec(tmp_path / "disk"),
        "archive": LocalBackendSpec(tmp_path / "archive"),
    }
    return build_file_service(specs, "disk")


@pytest.fixture
def catalog(
    database: Database, files: BackendScopedFileService, clock: ManualClock
) -> ResourceCatalog:
    return ResourceCatalog(
        StorageResourceRepository(database), AccessGrantRepository(database), files, clock=clock
    )


def _original(
    catalog: ResourceCatalog,
    files: BackendScopedFileService,
    scope: Scope,
    owner: str | None = None,
) -> str:
    owner = owner or str(uuid.uuid4())
    stored = files.save_stream(scope.tenant_id, owner, "report.pdf", [PDF])
    return catalog.register(
        stored.path,
        tenant_id=scope.tenant_id,
        size=stored.size,
        content_type="application/pdf",
        owner_type=KNOWLEDGE_ORIGINAL,
        owner_id=owner,
    ).ref


def test_a_registered_file_resolves_through_its_reference(
    catalog: ResourceCatalog, files: BackendScopedFileService, scope: Scope
) -> None:
    owner = str(uuid.uuid4())
    stored = files.save_stream(scope.tenant_id, owner, "report.pdf", [PDF])

    resource = catalog.register(
        stored.path,
        tenant_id=scope.tenant_id,
        size=stored.size,
        content_type="application/pdf",
        owner_type=KNOWLEDGE_ORIGINAL,
        owner_id=owner,
    )

    assert re.fullmatch(r"resource://[0-9a-f-]{36}", resource.ref)
    assert is_resource_ref(resource.ref) and not is_resource_ref(stored.path)
    got = catalog.get(resource.ref)
    assert (got.backend_id, got.path, got.size, got.content_type) == (
        "disk",
        stored.path,
        len(PDF),
        "application/pdf",
    )
    assert (got.tenant_id, got.owner_type, got.owner_id) == (scope.tenant_id, "knowledge", owner)
    assert got.deleted_at is None
    assert catalog.physical_path(resource.ref) == stored.path
    assert catalog.physical_path(stored.path) == stored.path  # a plain path passes through
    with catalog.open(resource.ref) as stream:
        assert stream.read() == PDF


def test_unknown_and_malformed_references_are_refused(catalog: ResourceCatalog) -> None:
    for ref in (f"resource://{uuid.uuid4()}", "resource://../../etc", "local://x", "resource://"):
        with pytest.raises(UnknownResource):
            catalog.get(ref)
    with pytest.raises(UnknownResource):
        catalog.open(f"resource://{uuid.uuid4()}")


def test_an_unbound_resource_can_be_bound_to_an_owner(
    catalog: ResourceCatalog, files: BackendScopedFileService, scope: Scope
) -> None:
    path = files.save_bytes(scope.tenant_id, "figure.png", b"png bytes")
    resource = catalog.register(path, tenant_id=scope.tenant_id, size=9, content_type="image/png")
    owner = str(uuid.uuid4())
    assert catalog.owned_by(KNOWLEDGE_FILES, [owner]) == []

    bound = catalog.bind(resource.ref, KNOWLEDGE_IMAGE, owner)

    assert (bound.owner_type, bound.owner_id) == (KNOWLEDGE_IMAGE, owner)
    assert [r.ref for r in catalog.owned_by(KNOWLEDGE_FILES, [owner])] == [resource.ref]
    with pytest.raises(UnknownResource):
        catalog.bind(f"resource://{uuid.uuid4()}", KNOWLEDGE_IMAGE, owner)


def test_marking_an_owner_deleted_stops_its_references_and_leaves_tombstones(
    catalog: ResourceCatalog, files: BackendScopedFileService, scope: Scope
) -> None:
    owner, other = str(uuid.uuid4()), str(uuid.uuid4())
    original = _original(catalog, files, scope, owner)
    image_path = files.save_bytes(scope.tenant_id, "figure.png", b"png bytes")
    image = catalog.register(
        image_path, tenant_id=scope.tenant_id, size=9, owner_type=KNOWLEDGE_IMAGE, owner_id=owner
    ).ref
    kept = _original(catalog, files, scope, other)

    assert catalog.mark_deleted(KNOWLEDGE_FILES, [owner]) == 2
    assert catalog.mark_deleted(KNOWLEDGE_FILES, [owner]) == 0  # already marked

    for ref in (original, image):
        with pytest.raises(DeletedResource):
            catalog.get(ref)
        with pytest.raises(DeletedResource):
            catalog.physical_path(ref)
        assert catalog.get(ref, include_deleted=True).deleted_at is not None
    assert catalog.owned_by(KNOWLEDGE_FILES, [owner]) == []
    assert {r.ref for r in catalog.owned_by(KNOWLEDGE_FILES, [owner], include_deleted=True)} == {
        original,
        image,
    }
    assert catalog.get(kept).deleted_at is None
    with pytest.raises(DeletedResource):
        catalog.bind(original, KNOWLEDGE_ORIGINAL, other)
    with pytest.raises(DeletedResource):
        catalog.relocate(original, image_path)
    with pytest.raises(DeletedResource):
        catalog.create_grant(original, 60)

    tombstones = catalog.tombstones(utcnow(), limit=1000)
    assert {original, image} <= {t.ref for t in tombstones}
    assert kept not in {t.ref for t in tombstones}
    earlier = catalog.tombstones(utcnow() - timedelta(hours=1), limit=1000)
    assert not {original, image} & {t.ref for t in earlier}
    assert catalog.forget([t for t in tombstones if t.ref in (original, image)]) == 2
    with pytest.raises(UnknownResource):
        catalog.get(original, include_deleted=True)


def test_a_relocated_reference_reads_the_copy_on_another_backend(
    catalog: ResourceCatalog, files: BackendScopedFileService, scope: Scope
) -> None:
    owner = str(uuid.uuid4())
    ref = _original(catalog, files, scope, owner)
    old_path = catalog.physical_path(ref)
    with files.open(old_path) as source:
        copy = files.for_backend("archive").save_stream(
            scope.tenant_id, owner, "report.pdf", iter(lambda: source.read(1000), b"")
        )
    files.delete(old_path)

    moved = catalog.relocate(ref, copy.path)

    assert (moved.ref, moved.backend_id, moved.path) == (ref, "archive", copy.path)
    assert copy.path.startswith("storage://archive/")
    with catalog.open(ref) as stream:
        assert stream.read() == PDF
    with pytest.raises(FileNotFoundInStorage):
        catalog.relocate(ref, old_path)  # a copy that is not there
    assert catalog.physical_path(ref) == copy.path
    with pytest.raises(UnknownResource):
        catalog.relocate(f"resource://{uuid.uuid4()}", copy.path)


def test_discard_removes_the_file_and_the_record(
    catalog: ResourceCatalog, files: BackendScopedFileService, scope: Scope
) -> None:
    ref = _original(catalog, files, scope)
    path = catalog.physical_path(ref)

    catalog.discard(ref)

    assert not files.exists(path)
    with pytest.raises(UnknownResource):
        catalog.get(ref, include_deleted=True)


def test_a_grant_opens_its_resource_and_only_its_digest_is_stored(
    catalog: ResourceCatalog, files: BackendScopedFileService, scope: Scope, database: Database
) -> None:
    ref = _original(catalog, files, scope)
    before = utcnow()

    grant = catalog.create_grant(ref, 600)

    assert re.fullmatch(r"[A-Za-z0-9_-]{43,}", grant.token)  # 32 random bytes, URL-safe
    assert grant.resource_ref == ref
    assert before + timedelta(seconds=599) <= grant.expires_at <= utcnow() + timedelta(seconds=600)
    assert catalog.check_grant(grant.token).ref == ref
    with database.session() as session:
        stored = session.scalars(select(AccessGrant.token)).all()
    assert hashlib.sha256(grant.token.encode()).hexdigest() in stored
    assert grant.token not in stored
    assert catalog.create_grant(ref, 600).token != grant.token
    for bad in ("", "x" * 43, grant.token[:-1]):
        with pytest.raises(GrantRefused) as refused:
            catalog.check_grant(bad)
        assert refused.value.reason == GrantRefusal.UNKNOWN
    with pytest.raises(ValueError):
        catalog.create_grant(ref, 0)
    with pytest.raises(UnknownResource):
        catalog.create_grant(f"resource://{uuid.uuid4()}", 60)


def test_a_grant_is_refused_once_expired_and_purged_after(
    catalog: ResourceCatalog, files: BackendScopedFileService, scope: Scope, clock: ManualClock
) -> None:
    ref = _original(catalog, files, scope)
    short = catalog.create_grant(ref, 1)
    long = catalog.create_grant(ref, 3600)
    assert catalog.check_grant(short.token).ref == ref

    clock.advance(1.2)

    with pytest.raises(GrantRefused) as refused:
        catalog.check_grant(short.token)
    assert refused.value.reason == GrantRefusal.EXPIRED
    assert catalog.purge_expired_grants() >= 1
    with pytest.raises(GrantRefused) as purged:
        catalog.check_grant(short.token)
    assert purged.value.reason == GrantRefusal.UNKNOWN
    assert catalog.check_grant(long.token).ref == ref  # not expired: not purged


def test_grants_stop_with_their_resource(
    catalog: ResourceCatalog, files: BackendScopedFileService, scope: Scope
) -> None:
    owner = str(uuid.uuid4())
    ref = _original(catalog, files, scope, owner)
    grant = catalog.create_grant(ref, 3600)

    catalog.mark_deleted(KNOWLEDGE_FILES, [owner])

    with pytest.raises(DeletedResource):
        catalog.check_grant(grant.token)
    catalog.forget([catalog.get(ref, include_deleted=True)])
    with pytest.raises(GrantRefused) as gone:  # the grant went with the record
        catalog.check_grant(grant.token)
    assert gone.value.reason == GrantRefusal.UNKNOWN
