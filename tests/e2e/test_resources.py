"""The resource catalog end to end, in lite and full mode, on a local disk backend and on a
real S3 endpoint (moto): a knowledge's original and extracted image are catalogued, access
grants stream them back byte for byte in bounded frames, grants expire, deletion marks them
deleted and stops their grants, and a relocated resource keeps streaming (and reparsing)
through the same reference.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sluice.v1 import resource_pb2, resource_pb2_grpc
from sluice_client import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    SluiceClient,
    SluiceRpcError,
)
from sluice_client._proto.sluice import v1
from sluice_client.cli import main as cli

from storage.db.engine import Database
from storage.db.repositories.access_grants import AccessGrantRepository
from storage.db.repositories.resources import KNOWLEDGE_IMAGE, StorageResourceRepository
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.backends import build_file_service
from storage.files.resource_catalog import ResourceCatalog, resource_ref
from tests.e2e.lifecycle_support import done, html_with_image, notes
from tests.e2e.stacks import Stack, disk_and_objects_stack
from tests.support.s3_server import S3Server
from tests.support.waiting import wait_until
from workers.settings import Settings

BACKENDS = ("disk", "objects")
FRAME_LIMIT = 256 << 10


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, s3_server: S3Server
) -> Iterator[Stack]:
    with disk_and_objects_stack(
        request.param,
        tmp_path_factory.mktemp(f"resources-{request.param}"),
        s3_server.backend_json(s3_server.new_bucket("sluice-resources")),
    ) as running:
        yield running


@dataclass
class StackStorage:
    """The deployment's catalog and storage, opened by the test itself: what a storage
    migration tool would use to move files underneath their references."""

    catalog: ResourceCatalog
    files: BackendScopedFileService
    # The catalog's table itself: a record as an older configuration wrote it.
    resources: StorageResourceRepository


@pytest.fixture(scope="module")
def storage(stack: Stack) -> Iterator[StackStorage]:
    settings = Settings.from_env(env=stack.env)
    db = Database.from_url(settings.storage.database_url)
    storage = settings.storage
    files = build_file_service(storage.file_backends, storage.file_default_backend)
    resources = StorageResourceRepository(db)
    try:
        yield StackStorage(
            ResourceCatalog(resources, AccessGrantRepository(db), files), files, resources
        )
    finally:
        db.dispose()


def _kb(client: SluiceClient, backend_id: str) -> v1.KnowledgeBase:
    config = v1.KnowledgeBaseConfig(storage=v1.StorageConfig(backend_id=backend_id))
    return client.create_knowledge_base(f"res-{uuid.uuid4().hex[:8]}", config=config)


def _embedded_png(page: bytes) -> bytes:
    match = re.search(rb"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert match is not None
    return base64.b64decode(match.group(1))


def _read(client: SluiceClient, token: str) -> tuple[v1.Resource, list[bytes]]:
    frames = list(client.read_resource(token, timeout=60))
    assert frames and frames[0].meta is not None, "the first frame is the meta frame"
    assert all(f.data is not None for f in frames[1:])
    return frames[0].meta, [f.data or b"" for f in frames[1:]]


def _reason(error: SluiceRpcError) -> str:
    [info] = [d for d in error.details if isinstance(d, error_details_pb2.ErrorInfo)]
    return str(info.reason)


def _processed(client: SluiceClient, backend_id: str, topic: str) -> tuple[v1.Knowledge, bytes]:
    page = html_with_image(topic)
    kb = _kb(client, backend_id)
    knowledge = client.upload_file(kb.id, io.BytesIO(page), file_name=f"{topic.lower()}.html")
    assert done(client, knowledge.id).parse_status == v1.ParseStatus.COMPLETED
    return knowledge, page


@pytest.mark.parametrize("backend_id", BACKENDS)
def test_grants_stream_the_original_and_its_image_back_byte_for_byte(
    client: SluiceClient, storage: StackStorage, backend_id: str
) -> None:
    knowledge, page = _processed(client, backend_id, "Puffin")

    original, image = client.list_resources(knowledge.id)

    assert original.kind == v1.ResourceKind.ORIGINAL
    assert (original.file_name, original.content_type, original.size) == (
        "puffin.html",
        "text/html",
        len(page),
    )
    assert image.kind == v1.ResourceKind.IMAGE and image.content_type == "image/png"
    assert {original.knowledge_id, image.knowledge_id} == {knowledge.id}
    for resource in (original, image):
        assert re.fullmatch(r"resource://[0-9a-f-]{36}", resource.ref)
        assert storage.catalog.get(resource.ref).backend_id == backend_id

    to_original = client.create_access_grant(knowledge_id=knowledge.id, ttl_seconds=120)
    to_image = client.create_access_grant(resource_ref=image.ref)

    assert to_original.resource is not None and to_original.resource.ref == original.ref
    meta, data = _read(client, to_original.token)
    assert (meta.ref, meta.file_name, meta.size) == (original.ref, "puffin.html", len(page))
    assert b"".join(data) == page
    meta, data = _read(client, to_image.token)
    assert (meta.ref, meta.content_type) == (image.ref, "image/png")
    assert b"".join(data) == _embedded_png(page)
    assert meta.size == len(_embedded_png(page))


def test_a_large_original_streams_in_bounded_frames(client: SluiceClient) -> None:
    kb = _kb(client, "objects")
    body = notes("Fulmar", paragraphs=12_000)  # about 900 KB
    knowledge = client.upload_file(kb.id, io.BytesIO(body), file_name="fulmar.md")
    grant = client.create_access_grant(knowledge_id=knowledge.id)

    meta, data = _read(client, grant.token)

    assert meta.size == len(body) > 3 * FRAME_LIMIT
    assert len(data) >= 4 and all(0 < len(piece) <= FRAME_LIMIT for piece in data)
    assert b"".join(data) == body
    client.delete_knowledge(knowledge.id)


def test_expired_and_unknown_grants_are_refused(client: SluiceClient) -> None:
    kb = _kb(client, "disk")
    knowledge = client.upload_file(kb.id, io.BytesIO(notes("Shag")), file_name="shag.md")
    grant = client.create_access_grant(knowledge_id=knowledge.id, ttl_seconds=1)
    assert b"".join(_read(client, grant.token)[1]) == notes("Shag")

    time.sleep(1.5)

    with pytest.raises(PermissionDenied) as expired:
        _read(client, grant.token)
    assert _reason(expired.value) == "GRANT_EXPIRED"
    with pytest.raises(PermissionDenied) as unknown:
        _read(client, "A" * 43)
    assert _reason(unknown.value) == "GRANT_UNKNOWN"
    with pytest.raises(InvalidArgument) as too_long:
        client.create_access_grant(knowledge_id=knowledge.id, ttl_seconds=86_401)
    assert [field for field, _ in too_long.value.field_violations] == ["ttl_seconds"]
    with pytest.raises(NotFound):
        client.create_access_grant(resource_ref=f"resource://{uuid.uuid4()}")
    manual = client.create_manual(kb.id, "Tern notes", "# Terns\n\nThey dive.")
    with pytest.raises(FailedPrecondition):
        client.create_access_grant(knowledge_id=manual.id)
    client.delete_knowledge(knowledge.id)


@pytest.mark.parametrize("backend_id", BACKENDS)
def test_after_delete_grants_are_refused_and_the_resources_are_marked_deleted(
    client: SluiceClient, storage: StackStorage, backend_id: str
) -> None:
    knowledge, _ = _processed(client, backend_id, "Gannet")
    resources = client.list_resources(knowledge.id)
    grants = [client.create_access_grant(resource_ref=r.ref, ttl_seconds=600) for r in resources]
    paths = [storage.catalog.get(r.ref).path for r in resources]

    client.delete_knowledge(knowledge.id)

    for grant in grants:
        with pytest.raises(NotFound):
            _read(client, grant.token)
    for resource in resources:
        marked = storage.catalog.get(resource.ref, include_deleted=True)
        assert marked.deleted_at is not None
        with pytest.raises(NotFound):
            client.create_access_grant(resource_ref=resource.ref)
    wait_until(lambda: not any(storage.files.exists(p) for p in paths), 60, "the files to go")
    with pytest.raises(NotFound):
        client.list_resources(knowledge.id)


def test_a_relocated_resource_streams_and_reparses_through_the_same_reference(
    client: SluiceClient, storage: StackStorage
) -> None:
    knowledge, page = _processed(client, "disk", "Kittiwake")
    original = client.list_resources(knowledge.id)[0]
    grant = client.create_access_grant(knowledge_id=knowledge.id, ttl_seconds=600)
    old_path = storage.catalog.get(original.ref).path

    # Move the bytes to the other backend, point the reference there, drop the old copy.
    with storage.files.open(old_path) as source:
        pieces = iter(lambda: source.read(4096), b"")
        copy = storage.files.for_backend("objects").save_stream(
            knowledge.tenant_id, knowledge.id, "kittiwake.html", pieces
        )
    storage.catalog.relocate(original.ref, copy.path)
    storage.files.delete(old_path)

    meta, data = _read(client, grant.token)
    assert meta.ref == original.ref and b"".join(data) == page
    assert client.list_resources(knowledge.id)[0].ref == original.ref
    # The workers read the original through the reference too.
    client.reparse(knowledge.id)
    assert done(client, knowledge.id).parse_status == v1.ParseStatus.COMPLETED

    client.delete_knowledge(knowledge.id)
    wait_until(lambda: not storage.files.exists(copy.path), 60, "the relocated file to go")


def test_the_cli_grants_and_fetches(
    stack: Stack, client: SluiceClient, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    kb = _kb(client, "disk")
    body = notes("Razorbill")
    knowledge = client.upload_file(kb.id, io.BytesIO(body), file_name="razorbill.md")
    target = ["--target", stack.target]

    assert cli([*target, "resources", knowledge.id]) == 0
    [listed] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert listed["kind"] == "RESOURCE_KIND_ORIGINAL" and listed["fileName"] == "razorbill.md"
    assert cli([*target, "grant", knowledge.id, "--ttl", "60"]) == 0
    token = json.loads(capsys.readouterr().out)["token"]
    # "--": a token is base64url and may start with "-".
    assert cli([*target, "fetch", "-o", str(tmp_path / "copy.md"), "--", token]) == 0
    assert "razorbill.md" in capsys.readouterr().out
    assert (tmp_path / "copy.md").read_bytes() == body
    assert cli([*target, "grant", listed["ref"]]) == 0
    assert json.loads(capsys.readouterr().out)["resource"]["ref"] == listed["ref"]
    assert cli([*target, "fetch", "A" * 43, "-o", str(tmp_path / "nothing")]) == 5
    assert "PERMISSION_DENIED" in capsys.readouterr().err
    assert not (tmp_path / "nothing").exists()
    client.delete_knowledge(knowledge.id)


def test_a_resource_on_a_backend_no_longer_configured_is_a_failed_precondition(
    client: SluiceClient, storage: StackStorage
) -> None:
    record = storage.resources.record(
        tenant_id="t",
        path="storage://retired/local://t/k/old.png",
        owner_type=KNOWLEDGE_IMAGE,
        owner_id=str(uuid.uuid4()),
        size=3,
        backend_id="retired",
    )
    grant = storage.catalog.create_grant(resource_ref(record.id), 60)
    try:
        with pytest.raises(FailedPrecondition, match="'retired'"):
            _read(client, grant.token)
    finally:
        storage.resources.forget_ids([record.id])


def test_a_read_cancelled_while_storage_is_slow_does_not_stall_the_server(
    stack: Stack, storage: StackStorage
) -> None:
    # A named pipe stands for a slow store: a read of it blocks until something is written.
    inner = f"local://t/{uuid.uuid4()}/slow.bin"
    pipe = stack.storage_dir / inner.removeprefix("local://")
    pipe.parent.mkdir(parents=True)
    os.mkfifo(pipe)
    writer = os.open(pipe, os.O_RDWR)  # the server's open does not wait for a writer then
    resource = storage.catalog.register(
        f"storage://disk/{inner}",
        tenant_id="t",
        size=1 << 20,
        owner_type=KNOWLEDGE_IMAGE,
        owner_id=str(uuid.uuid4()),
    )
    grant = storage.catalog.create_grant(resource.ref, 60)
    try:
        with grpc.insecure_channel(stack.target) as channel:
            request = resource_pb2.ReadResourceRequest(token=grant.token)
            call = resource_pb2_grpc.ResourceServiceStub(channel).ReadResource(request, timeout=60)
            assert next(call).HasField("meta")
            time.sleep(0.5)  # the server is reading the first data frame now, and waits
            call.cancel()
            time.sleep(0.5)  # ...and is told of the cancel

            health = health_pb2_grpc.HealthStub(channel)
            started = time.monotonic()
            answer = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
            assert time.monotonic() - started < 2, "the server stalled on the cancelled read"
    finally:
        os.close(writer)  # the read ends (end of file), whatever happened
        storage.catalog.discard(resource.ref)
