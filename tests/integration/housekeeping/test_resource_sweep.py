"""Sweep D (the resource catalog's leftovers), and the catalog marks of a deletion that
sweep C hands back as failed."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from core.clock import ManualClock
from storage.db.models import utcnow
from storage.db.repositories.resources import KNOWLEDGE_FILES, KNOWLEDGE_ORIGINAL
from storage.files.access_grants import GrantRefusal, GrantRefused
from storage.files.backends import LocalBackendSpec
from storage.files.resource_catalog import DeletedResource, UnknownResource
from tests.integration.housekeeping.conftest import (
    STALE_AFTER_S,
    Scope,
    add_knowledge,
    backdate,
    housekeeping_context,
)
from workers.context import WorkerContext
from workers.housekeeping.resources import FAILED_DELETES_PER_BACKEND, RECORDS_PER_ROUND
from workers.housekeeping.rounds import run_round
from workers.lifecycle.deletion import mark_deleting


def _stored(ctx: WorkerContext, scope: Scope, owner_id: str) -> str:
    stored = ctx.files.save_stream(scope.tenant_id, owner_id, "notes.md", [b"# notes\n"])
    return ctx.catalog.register(
        stored.path,
        tenant_id=scope.tenant_id,
        size=stored.size,
        content_type="text/markdown",
        owner_type=KNOWLEDGE_ORIGINAL,
        owner_id=owner_id,
    ).ref


def _recorded(
    ctx: WorkerContext, tenant_id: str, path: str, backend_id: str, owner_id: str, count: int = 1
) -> list[str]:
    """Records as an earlier configuration wrote them (``register`` checks paths against
    today's backends)."""
    return [
        ctx.resources.record(
            tenant_id=tenant_id,
            path=path,
            owner_type=KNOWLEDGE_ORIGINAL,
            owner_id=owner_id,
            size=1,
            backend_id=backend_id,
        ).id
        for _ in range(count)
    ]


def _past_retention(ctx: WorkerContext) -> datetime:
    return utcnow() + timedelta(seconds=ctx.settings.housekeeping.deleted_resource_retention_s + 60)


def _known(ctx: WorkerContext, ref: str) -> bool:
    try:
        ctx.catalog.get(ref, include_deleted=True)
    except UnknownResource:
        return False
    return True


def test_d_purges_expired_grants_and_forgets_old_tombstones_with_their_files(
    ctx: WorkerContext, scope: Scope, clock: ManualClock
) -> None:
    deleted_owner = str(uuid.uuid4())
    tombstone = _stored(ctx, scope, deleted_owner)
    tombstone_path = ctx.catalog.get(tombstone).path
    live = _stored(ctx, scope, add_knowledge(ctx, scope).id)
    short = ctx.catalog.create_grant(live, 1)
    long = ctx.catalog.create_grant(live, 3600)
    ctx.catalog.mark_deleted(KNOWLEDGE_FILES, [deleted_owner])
    clock.advance(1.2)

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

    retention_s = ctx.settings.housekeeping.deleted_resource_retention_s
    past_retention = utcnow() + timedelta(seconds=retention_s + 60)
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


def test_d_removes_the_files_and_records_of_knowledges_that_do_not_exist(
    ctx: WorkerContext, scope: Scope
) -> None:
    owned = _stored(ctx, scope, add_knowledge(ctx, scope).id)
    orphan = _stored(ctx, scope, str(uuid.uuid4()))  # its knowledge was never recorded
    orphan_path = ctx.catalog.get(orphan).path

    # Young, it may be an upload whose knowledge is being recorded right now.
    run_round(ctx)
    assert ctx.files.exists(orphan_path) and _known(ctx, orphan)

    report = run_round(ctx, utcnow() + timedelta(seconds=STALE_AFTER_S + 60))

    assert report.resources["orphans_removed"] >= 1
    assert not _known(ctx, orphan)
    assert not ctx.files.exists(orphan_path)
    assert ctx.catalog.get(owned).deleted_at is None
    with ctx.catalog.open(owned) as stream:
        assert stream.read() == b"# notes\n"


def test_d_forgets_records_whose_files_cannot_be_reached_and_gets_past_them(
    ctx: WorkerContext, scope: Scope
) -> None:
    # A page's worth on a backend the configuration dropped, one at a path no backend holds,
    # all deleted before an ordinary tombstone.
    unreachable = str(uuid.uuid4())
    ids = _recorded(
        ctx,
        scope.tenant_id,
        "storage://removed/local://t/k/gone.md",
        "removed",
        unreachable,
        count=RECORDS_PER_ROUND,
    )
    ids += _recorded(ctx, scope.tenant_id, "s3://old-bucket/t/k/gone.md", "s3", unreachable)
    ctx.resources.mark_deleted(KNOWLEDGE_FILES, [unreachable], when=utcnow() - timedelta(hours=1))
    deleted_owner = str(uuid.uuid4())
    tombstone = _stored(ctx, scope, deleted_owner)
    tombstone_path = ctx.catalog.get(tombstone).path
    ctx.catalog.mark_deleted(KNOWLEDGE_FILES, [deleted_owner])

    forgotten = 0
    for _ in range(3):  # a round handles a page's worth; what comes after waits for the next
        report = run_round(ctx, _past_retention(ctx))
        forgotten += report.resources["forgotten"]
        if not _known(ctx, tombstone):
            break

    assert not _known(ctx, tombstone)
    assert not ctx.files.exists(tombstone_path)
    assert forgotten >= len(ids) + 1
    assert not [i for i in ids if _known(ctx, f"resource://{i}")]


@pytest.fixture
def two_disks(database_url: str, key_prefix: str, tmp_path: Path) -> Iterator[WorkerContext]:
    with housekeeping_context(
        database_url,
        tmp_path,
        key_prefix,
        storage_default_backend="a",
        storage_backends={d: LocalBackendSpec(tmp_path / d) for d in ("a", "b")},
    ) as context:
        yield context


def test_d_a_backend_whose_deletes_fail_does_not_hold_back_the_others(
    two_disks: WorkerContext, tmp_path: Path
) -> None:
    ctx = two_disks
    # A directory where b's file should be: deleting it fails, round after round.
    (tmp_path / "b" / "t" / "k" / "stuck.md").mkdir(parents=True)
    failing = str(uuid.uuid4())
    stuck = _recorded(
        ctx, "t", "storage://b/local://t/k/stuck.md", "b", failing, count=RECORDS_PER_ROUND
    )
    ctx.resources.mark_deleted(KNOWLEDGE_FILES, [failing], when=utcnow() - timedelta(hours=1))
    deleted_owner = str(uuid.uuid4())
    stored = ctx.files.save_stream("t", deleted_owner, "notes.md", [b"# notes\n"])
    on_a = ctx.catalog.register(
        stored.path,
        tenant_id="t",
        size=stored.size,
        owner_type=KNOWLEDGE_ORIGINAL,
        owner_id=deleted_owner,
    ).ref
    ctx.catalog.mark_deleted(KNOWLEDGE_FILES, [deleted_owner])

    report = run_round(ctx, _past_retention(ctx))

    # b was tried a few times, then left alone for the round; a's tombstone went.
    assert report.resources["kept"] == FAILED_DELETES_PER_BACKEND
    assert not _known(ctx, on_a)
    assert not ctx.files.exists(stored.path)
    assert all(_known(ctx, f"resource://{i}") for i in stuck)
