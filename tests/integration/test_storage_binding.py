"""A knowledge base bound to a storage backend instance, in process: what the API refuses,
and what happens when the configuration no longer has the backend a knowledge base names."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from sluice.v1 import config_pb2, knowledge_base_pb2, knowledge_pb2

from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.identity import Identity
from server.services.ingest import IngestService
from server.services.knowledge_bases import KnowledgeBaseService
from storage.files.backend_scoped import UnknownBackendError
from workers.context import WorkerContext


@pytest.fixture
def ctx_env(tmp_path: Path) -> dict[str, str]:
    backends = {
        "disk": {"provider": "local", "dir": str(tmp_path / "disk")},
        "archive": {"provider": "local", "dir": str(tmp_path / "archive")},
    }
    return {"SLUICE_STORAGE_BACKENDS": json.dumps(backends)}


@pytest.fixture
def identity(ctx: WorkerContext) -> Identity:
    return Identity(ctx.tenants.create_tenant("binding").id, is_admin=False)


def _create(service: KnowledgeBaseService, identity: Identity, backend_id: str) -> str:
    config = config_pb2.KnowledgeBaseConfig(storage=config_pb2.StorageConfig(backend_id=backend_id))
    request = knowledge_base_pb2.CreateKnowledgeBaseRequest(name=backend_id, config=config)
    return service.create(identity, request).row.id


def test_binding_is_checked_at_create_and_recorded_on_the_row(
    ctx: WorkerContext, identity: Identity
) -> None:
    service = KnowledgeBaseService(ctx)
    with pytest.raises(ApiError) as refused, translated():
        _create(service, identity, "s3")
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "unknown storage backend 's3'; configured: disk, archive" in refused.value.message

    kb_id = _create(service, identity, "archive")
    row = ctx.knowledge_bases.get(None, kb_id)
    assert row is not None and row.storage_backend_id == "archive"
    written = ctx.files_for_knowledge_base(kb_id).save_bytes(identity.tenant_id, "a.txt", b"a")
    assert written.startswith("storage://archive/local://")


def test_a_backend_dropped_from_the_configuration_stops_uploads_with_a_reason(
    ctx: WorkerContext, identity: Identity
) -> None:
    kb = ctx.knowledge_bases.create(identity.tenant_id, "orphan", storage_backend_id="gone")
    kbs = KnowledgeBaseService(ctx)
    header = knowledge_pb2.FileHeader(knowledge_base_id=kb.id, file_name="a.md")

    with pytest.raises(ApiError) as refused, translated():
        IngestService(ctx, kbs).plan_upload(identity, header)

    assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "storage backend 'gone'" in refused.value.message
    with pytest.raises(UnknownBackendError, match="'gone'"):
        ctx.files_for_knowledge_base(kb.id)
