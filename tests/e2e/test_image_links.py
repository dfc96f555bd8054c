"""Image links end to end, in lite and full mode, on a local disk and on a real S3 endpoint
(moto): the stored chunks link a document's image by its resource reference, never by a
URL, and ListChunks and Search hand out URLs that serve the image — made afresh for every
response, and following the resource when it is relocated to another backend.
"""

from __future__ import annotations

import base64
import io
import re
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from storage.db.engine import Database
from storage.db.repositories.access_grants import AccessGrantRepository
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.resources import StorageResourceRepository
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.backends import build_file_service
from storage.files.resource_catalog import ResourceCatalog
from tests.e2e.lifecycle_support import done, html_with_image
from tests.e2e.stacks import Stack, disk_and_objects_stack
from tests.support.s3_server import S3Server
from tests.support.waiting import wait_until
from workers.settings import Settings

OTHER_BACKEND = {"disk": "objects", "objects": "disk"}
_IMAGE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, s3_server: S3Server
) -> Iterator[Stack]:
    with disk_and_objects_stack(
        request.param,
        tmp_path_factory.mktemp(f"image-links-{request.param}"),
        s3_server.backend_json(s3_server.new_bucket("sluice-image-links")),
    ) as running:
        yield running


@dataclass
class Deployment:
    """The deployment's database and storage, opened by the test itself: what it stored,
    and what a storage migration tool would use to move files under their references."""

    chunks: ChunkRepository
    catalog: ResourceCatalog
    files: BackendScopedFileService


@pytest.fixture(scope="module")
def deployment(stack: Stack) -> Iterator[Deployment]:
    settings = Settings.from_env(env=stack.env)
    db = Database.from_url(settings.storage.database_url)
    storage = settings.storage
    files = build_file_service(storage.file_backends, storage.file_default_backend)
    catalog = ResourceCatalog(StorageResourceRepository(db), AccessGrantRepository(db), files)
    try:
        yield Deployment(ChunkRepository(db), catalog, files)
    finally:
        db.dispose()


def _embedded_png(page: bytes) -> bytes:
    match = re.search(rb"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert match is not None
    return base64.b64decode(match.group(1))


def _opened(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return bytes(response.read())


def _only_image_url(contents: list[str]) -> str:
    [url] = [url for content in contents for url in _IMAGE_LINK.findall(content)]
    return str(url)


def _searched_url(client: SluiceClient, kb_id: str, knowledge_id: str, topic: str) -> str:
    hits = client.search(f"{topic} gauge panel drawn below", [kb_id], top_k=10)
    return _only_image_url([hit.content for hit in hits if hit.knowledge_id == knowledge_id])


def _location(url: str) -> tuple[str, str, str]:
    """Where a URL points, without its signature."""
    parts = urlsplit(url)
    return parts.scheme, parts.netloc, parts.path


@pytest.mark.parametrize("backend_id", ["disk", "objects"])
def test_chunks_store_the_reference_and_every_read_gets_a_working_url(
    client: SluiceClient, deployment: Deployment, backend_id: str
) -> None:
    topic = f"Shearwater{backend_id.capitalize()}"
    page = html_with_image(topic)
    png = _embedded_png(page)
    config = v1.KnowledgeBaseConfig(storage=v1.StorageConfig(backend_id=backend_id))
    kb = client.create_knowledge_base(f"links-{uuid.uuid4().hex[:8]}", config=config)
    knowledge = client.upload_file(kb.id, io.BytesIO(page), file_name=f"{topic.lower()}.html")
    assert done(client, knowledge.id).parse_status == v1.ParseStatus.COMPLETED
    [image] = [r for r in client.list_resources(knowledge.id) if r.kind == v1.ResourceKind.IMAGE]

    # Stored (and so embedded and indexed): the stable reference, no URL, no signature.
    rows, _ = deployment.chunks.list_by_knowledge(knowledge.id, 100, 0, tenant_id=None)
    stored = "\n".join(row.content for row in rows)
    assert _IMAGE_LINK.findall(stored) == [image.ref]
    assert not re.search(r"https?://|file://|X-Amz-", stored)

    # ListChunks and Search: URLs that serve the image, signed anew for each response.
    listed = _only_image_url([chunk.content for chunk in client.list_chunks(knowledge.id)])
    assert _opened(listed) == png
    first = _searched_url(client, kb.id, knowledge.id, topic)
    time.sleep(1.1)  # a presigned URL carries its signing time to the second
    second = _searched_url(client, kb.id, knowledge.id, topic)
    assert _opened(first) == _opened(second) == png
    if backend_id == "objects":
        assert first != second, "each response signs its own URL"
    image_path = deployment.catalog.get(image.ref).path
    assert _location(first) == _location(deployment.files.url(image_path))

    # Move the image to the other backend under the same reference; drop the old copy.
    moved = deployment.files.for_backend(OTHER_BACKEND[backend_id]).save_bytes(
        knowledge.tenant_id, "relocated.png", png
    )
    deployment.catalog.relocate(image.ref, moved)
    deployment.files.delete(image_path)

    relocated = _searched_url(client, kb.id, knowledge.id, topic)
    assert _location(relocated) == _location(deployment.files.url(moved))
    assert _location(relocated) != _location(first)
    assert _opened(relocated) == png
    with pytest.raises(urllib.error.URLError):
        _opened(first)  # the old copy is gone: only the reference kept the link alive
    assert _opened(_only_image_url([c.content for c in client.list_chunks(knowledge.id)])) == png

    # Deleting the knowledge removes the image where it lives now.
    client.delete_knowledge(knowledge.id)
    wait_until(lambda: not deployment.files.exists(moved), 60, "the relocated image to go")
