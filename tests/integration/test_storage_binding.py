"""A knowledge base bound to a storage backend instance, in process: what the API refuses,
and what happens when the configuration no longer has the backend a knowledge base names."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from sluice.v1 import config_pb2, knowledge_base_pb2, knowledge_pb2

from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.identity import Identity
from server.services.ingest import IngestService
from server.services.knowledge_bases import KnowledgeBaseService
from storage.db.migrate import upgrade_to_head
from storage.events.memory_bus import InMemoryEventBus
from storage.files.backend_scoped import UnknownBackendError
from storage.queue.lite import LiteTaskQueue
from workers.context import WorkerContext
from workers.settings import Settings
from workers.wiring import build_context


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[WorkerContext]:
    backends = {
        "disk": {"provider": "local", "dir": str(tmp_path / "disk")},
        "archive": {"provider": "local", "dir": str(tmp_path / "archive")},
    }
    settings = Settings.from_env(
        env={"SLUICE_DATA_DIR": str(tmp_path), "SLUICE_STORAGE_BACKENDS": json.dumps(backends)}
    )
    upgrade_to_head(settings.storage.database_url)
    context = build_context(
        settings, queue=LiteTaskQueue(), publisher=InMemoryEventBus(), docreader_target="x:1"
    )
    yield context
    context.close()


@pytest.fixture
def identity(ctx: WorkerContext) -> Identity:
    return Identity(ctx.tenants.create_tenant("binding").id, is_admin=False)


def _create(service: KnowledgeBaseService, identity: Identity, backend_id: str) -> str:
    config = config_pb2.KnowledgeBaseConfig(storage=config_pb2.StorageConfig(backend_id=backend_id))
    request = knowledge_base_pb2.CreateKnowledgeBaseRequest(name=backend_id, config=config)
    return service.create(identity, request).id


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
