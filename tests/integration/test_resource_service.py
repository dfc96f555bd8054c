"""ResourceService's rules in process: an upload's original enters the catalog (a duplicate
leaves nothing behind), and listing and granting are scoped to the caller's tenant."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from sluice.v1 import knowledge_base_pb2, knowledge_pb2, resource_pb2
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from server.api import convert
from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.identity import Identity
from server.services.ingest import IngestService, UploadPlan
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.resources import ResourceCatalogService
from storage.db.repositories.resources import KNOWLEDGE_FILES
from storage.files.resource_catalog import is_resource_ref
from workers.context import WorkerContext

NOTES = b"# Skerries\n\nThe skerry light is checked at dusk.\n"


def _tenant(ctx: WorkerContext) -> Identity:
    return Identity(ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id, is_admin=False)


def _upload(
    ctx: WorkerContext,
    identity: Identity,
    kb_id: str,
    name: str,
    before_finish: Callable[[UploadPlan], object] = lambda plan: None,
) -> str:
    ingest = IngestService(ctx, KnowledgeBaseService(ctx))
    plan = ingest.plan_upload(
        identity, knowledge_pb2.FileHeader(knowledge_base_id=kb_id, file_name=name)
    )
    upload = ctx.files.begin_upload(plan.tenant_id, plan.knowledge_id, plan.file_name)
    upload.write(NOTES)
    before_finish(plan)
    return ingest.finish_upload(plan, upload).row.id


def _stored_files(ctx: WorkerContext) -> set[Path]:
    return {p for p in ctx.settings.storage.storage_dir.rglob("*") if p.is_file()}


def _sql(ctx: WorkerContext, statement: str) -> None:
    with ctx.db.session() as session:
        session.execute(text(statement))


def _kb(ctx: WorkerContext, identity: Identity) -> str:
    request = knowledge_base_pb2.CreateKnowledgeBaseRequest(name=f"kb-{uuid.uuid4().hex[:6]}")
    return KnowledgeBaseService(ctx).create(identity, request).row.id


def _refused(code: grpc.StatusCode, error: pytest.ExceptionInfo[ApiError]) -> None:
    assert error.value.code == code, error.value.message


def test_an_uploaded_original_is_catalogued_and_a_duplicate_leaves_nothing(
    ctx: WorkerContext,
) -> None:
    owner = _tenant(ctx)
    kb_id = _kb(ctx, owner)

    knowledge_id = _upload(ctx, owner, kb_id, "skerries.md")

    row = ctx.knowledges.get(knowledge_id, None)
    assert row is not None and is_resource_ref(row.file_path)
    original = ctx.catalog.get(row.file_path)
    assert (original.owner_type, original.owner_id, original.size) == (
        "knowledge",
        knowledge_id,
        len(NOTES),
    )
    with ctx.catalog.open(row.file_path) as stream:
        assert stream.read() == NOTES
    catalogued = ctx.catalog.owned_by(KNOWLEDGE_FILES, [knowledge_id])
    stored = {p for p in ctx.settings.storage.storage_dir.rglob("*") if p.is_file()}

    with pytest.raises(ApiError) as duplicate, translated():
        _upload(ctx, owner, kb_id, "skerries.md")

    _refused(grpc.StatusCode.ALREADY_EXISTS, duplicate)
    assert ctx.catalog.owned_by(KNOWLEDGE_FILES, [knowledge_id]) == catalogued
    assert {p for p in ctx.settings.storage.storage_dir.rglob("*") if p.is_file()} == stored


def test_listing_and_granting_are_scoped_to_the_tenant(ctx: WorkerContext) -> None:
    owner, stranger = _tenant(ctx), _tenant(ctx)
    admin = Identity(stranger.tenant_id, is_admin=True)
    knowledge_id = _upload(ctx, owner, _kb(ctx, owner), "skerries.md")
    service = ResourceCatalogService(ctx)
    [original] = map(convert.resource, service.list_for_knowledge(owner, knowledge_id))
    by_knowledge = resource_pb2.CreateAccessGrantRequest(knowledge_id=knowledge_id)
    by_ref = resource_pb2.CreateAccessGrantRequest(resource_ref=original.ref)

    for request in (by_knowledge, by_ref):
        with pytest.raises(ApiError) as hidden, translated():
            service.create_grant(stranger, request)
        _refused(grpc.StatusCode.NOT_FOUND, hidden)
        assert service.create_grant(owner, request).resource.resource.ref == original.ref
        assert service.create_grant(admin, request).resource.resource.ref == original.ref
    with pytest.raises(ApiError) as hidden, translated():
        service.list_for_knowledge(stranger, knowledge_id)
    _refused(grpc.StatusCode.NOT_FOUND, hidden)

    # The token alone opens it: whoever holds it reads, no identity asked.
    grant = service.create_grant(owner, by_knowledge)
    opened = service.open_grant(grant.token)
    meta, resource = convert.resource(opened), opened.resource
    assert (meta.ref, meta.file_name, meta.size) == (original.ref, "skerries.md", len(NOTES))
    assert resource.path == ctx.catalog.physical_path(original.ref)
    with pytest.raises(ApiError) as refused, translated():
        service.open_grant(grant.token + "x")
    _refused(grpc.StatusCode.PERMISSION_DENIED, refused)
    [info] = [d for d in refused.value.details if isinstance(d, error_details_pb2.ErrorInfo)]
    assert info.reason == "GRANT_UNKNOWN"
    with pytest.raises(ApiError) as malformed, translated():
        service.create_grant(owner, resource_pb2.CreateAccessGrantRequest(resource_ref="x"))
    _refused(grpc.StatusCode.INVALID_ARGUMENT, malformed)
    with pytest.raises(ApiError) as no_target, translated():
        service.create_grant(owner, resource_pb2.CreateAccessGrantRequest(ttl_seconds=60))
    _refused(grpc.StatusCode.INVALID_ARGUMENT, no_target)
    with pytest.raises(ApiError) as negative, translated():
        service.create_grant(
            owner, resource_pb2.CreateAccessGrantRequest(knowledge_id=knowledge_id, ttl_seconds=-1)
        )
    _refused(grpc.StatusCode.INVALID_ARGUMENT, negative)


def test_an_upload_whose_knowledge_cannot_be_recorded_leaves_no_file_and_no_record(
    ctx: WorkerContext,
) -> None:
    owner = _tenant(ctx)
    kb_id = _kb(ctx, owner)
    kept = _stored_files(ctx)
    plans: list[UploadPlan] = []

    def delete_the_knowledge_base(plan: UploadPlan) -> None:
        # Deleted while the bytes were arriving: the knowledge's insert breaks its foreign key.
        plans.append(plan)
        KnowledgeBaseService(ctx).delete(owner, kb_id)

    with pytest.raises(IntegrityError):
        _upload(ctx, owner, kb_id, "skerries.md", delete_the_knowledge_base)

    [plan] = plans
    assert ctx.knowledges.get(plan.knowledge_id, None) is None
    assert ctx.catalog.owned_by(KNOWLEDGE_FILES, [plan.knowledge_id], include_deleted=True) == []
    assert _stored_files(ctx) == kept


def test_an_upload_whose_file_cannot_be_catalogued_leaves_no_file(ctx: WorkerContext) -> None:
    owner = _tenant(ctx)
    kb_id = _kb(ctx, owner)
    kept = _stored_files(ctx)
    # The database refuses the catalog record (as it would if it failed right then).
    _sql(
        ctx,
        "CREATE TRIGGER refuse_records BEFORE INSERT ON storage_resources "
        "BEGIN SELECT RAISE(ABORT, 'storage_resources refused'); END",
    )

    plans: list[UploadPlan] = []

    with pytest.raises(IntegrityError, match="storage_resources refused"):
        _upload(ctx, owner, kb_id, "skerries.md", plans.append)

    assert _stored_files(ctx) == kept
    assert ctx.knowledges.get(plans[0].knowledge_id, None) is None


def test_a_resource_forgotten_while_a_grant_is_made_is_not_found(ctx: WorkerContext) -> None:
    owner = _tenant(ctx)
    knowledge_id = _upload(ctx, owner, _kb(ctx, owner), "skerries.md")
    service = ResourceCatalogService(ctx)
    [original] = map(convert.resource, service.list_for_knowledge(owner, knowledge_id))
    # Housekeeping forgets the record right between the grant's read of it and its insert.
    _sql(
        ctx,
        "CREATE TRIGGER forget_first BEFORE INSERT ON access_grants "
        "BEGIN DELETE FROM storage_resources WHERE id = NEW.resource_id; END",
    )

    with pytest.raises(ApiError) as refused, translated():
        service.create_grant(
            owner, resource_pb2.CreateAccessGrantRequest(resource_ref=original.ref)
        )

    _refused(grpc.StatusCode.NOT_FOUND, refused)
    [info] = [d for d in refused.value.details if isinstance(d, error_details_pb2.ResourceInfo)]
    assert info.resource_name == original.ref
