"""Sweep D (the resource catalog's leftovers), and the catalog marks of a deletion that
sweep C hands back as failed."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import pytest

from storage.db.models import utcnow
from storage.db.repositories.resources import KNOWLEDGE_FILES, KNOWLEDGE_ORIGINAL
from storage.files.access_grants import GrantRefusal, GrantRefused
from storage.files.resource_catalog import DeletedResource, UnknownResource
from tests.integration.housekeeping.conftest import (
    STALE_AFTER_S,
    Scope,
    add_knowledge,
    backdate,
)
from workers.context import WorkerContext
from workers.housekeeping.rounds import run_round
from workers.lifecycle.deletion import mark_deleting


def _stored(ctx: WorkerContext, scope: Scope, owner_id: str) -> str:
    stored = ctx.files.save_stream(scope.tenant_id, owner_id, "notes.md", [b"# notes\n"])
    return ctx.catalog.register(
        stored.path, tenant_id=scope.tenant_id, size=stored.size, content_type="text/markdown",
        owner_type=KNOWLEDGE_ORIGINAL, owner_id=owner_id,
    ).ref


def test_d_purges_expired_grants_and_forgets_old_tombstones_with_their_files(
    ctx: WorkerContext, scope: Scope
) -> None:
    deleted_owner = str(uuid.uuid4())
    tombstone = _stored(ctx, scope, deleted_owner)
    tombstone_path = ctx.catalog.get(tombstone).path
    live = _stored(ctx, scope, str(uuid.uuid4()))
    short = ctx.catalog.create_grant(live, 1)
    long = ctx.catalog.create_grant(live, 3600)
    ctx.catalog.mark_deleted(KNOWLEDGE_FILES, [deleted_owner])
    time.sleep(1.2)

    report = run_round(ctx)

    assert report.resources["grants_purged"] >= 1
    with pytest.raises(GrantRefused) as purged:
        ctx.catalog.check_grant(short.token)
    assert purged.value.reason == GrantRefusal.UNKNOWN
    assert ctx.catalog.check_grant(long.token).ref == live
    # Within the retention a tombstone stays, so the reference still reads "deleted".
    with pytest.raises(DeletedResource):
        ctx.catalog.get(tombstone)
    assert ctx.files.exists(tombstone_path)

    past_retention = utcnow() + timedelta(seconds=ctx.settings.deleted_resource_retention_s + 60)
    report = run_round(ctx, past_retention)

    assert report.resources["forgotten"] >= 1
    with pytest.raises(UnknownResource):
        ctx.catalog.get(tombstone, include_deleted=True)
    assert not ctx.files.exists(tombstone_path)
    assert ctx.catalog.get(live).deleted_at is None


def test_a_deletion_handed_back_as_failed_gets_its_files_back(
    ctx: WorkerContext, scope: Scope
) -> None:
    row = add_knowledge(ctx, scope, parse_status="completed")
    ref = _stored(ctx, scope, row.id)
    ctx.knowledges.update_fields(row.id, file_path=ref)
    grant = ctx.catalog.create_grant(ref, 3600)
    mark_deleting(ctx, [row.id])  # ...and the process dies before the rest of the chain
    with pytest.raises(DeletedResource):
        ctx.catalog.check_grant(grant.token)
    backdate(ctx, row.id, STALE_AFTER_S + 600)

    report = run_round(ctx)

    assert report.deletions["failed"] == 1
    assert ctx.catalog.get(ref).deleted_at is None
    assert ctx.catalog.check_grant(grant.token).ref == ref
    with ctx.catalog.open(ref) as stream:
        assert stream.read() == b"# notes\n"
