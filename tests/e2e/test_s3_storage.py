"""Files on S3 end to end, in lite and full mode, against a real S3 endpoint (moto).

The deployment configures three storage backends: "disk" (local, the default), "objects"
(an S3 bucket, MinIO-style) and "unreachable" (a bucket that does not exist). A knowledge
base bound to "objects" keeps a document's original and its extracted images in the
bucket, the document becomes searchable, and DeleteKnowledge removes them from the bucket;
rebinding a knowledge base sends new files to the new backend while the old ones still
resolve; unknown backends are refused; health reports each backend.
"""

from __future__ import annotations

import io
import json
import re
import urllib.request
import uuid
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sluice_client import InvalidArgument, SluiceClient, Unavailable
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import (
    done,
    html_with_image,
    notes,
    searchable_chunk_ids,
    stored_files,
)
from tests.e2e.stacks import Stack, disk_and_objects_stack
from tests.support.s3_server import S3Server
from tests.support.waiting import wait_until

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture(scope="module")
def bucket(s3_server: S3Server) -> str:
    return s3_server.new_bucket("sluice-e2e")


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    s3_server: S3Server,
    bucket: str,
) -> Iterator[Stack]:
    missing = s3_server.backend_json(f"sluice-missing-{uuid.uuid4().hex[:8]}")
    with disk_and_objects_stack(
        request.param,
        tmp_path_factory.mktemp(f"s3-storage-{request.param}"),
        s3_server.backend_json(bucket),
        more_backends={"unreachable": missing},
        extra_env={"SLUICE_STORAGE_HEALTH_INTERVAL": "1"},
    ) as running:
        yield running


def _bound_config(backend_id: str) -> v1.KnowledgeBaseConfig:
    return v1.KnowledgeBaseConfig(storage=v1.StorageConfig(backend_id=backend_id))


def _kb(client: SluiceClient, backend_id: str = "") -> v1.KnowledgeBase:
    config = _bound_config(backend_id) if backend_id else None
    return client.create_knowledge_base(f"s3-{uuid.uuid4().hex[:8]}", config=config)


def _backend_of(kb: v1.KnowledgeBase) -> str:
    storage = kb.config.storage if kb.config else None
    return storage.backend_id if storage else ""


def _objects_of(s3: S3Server, bucket: str, knowledge_id: str) -> dict[str, bytes]:
    """The knowledge's objects: its original (``…/{id}/…``) and its images (``{id}-…``)."""
    return {k: v for k, v in s3.objects(bucket).items() if knowledge_id in k}


def _markdown(client: SluiceClient, knowledge_id: str) -> str:
    return "\n".join(chunk.content for chunk in client.list_chunks(knowledge_id))


def test_a_knowledge_base_bound_to_s3_keeps_its_files_in_the_bucket_until_deleted(
    stack: Stack, client: SluiceClient, s3_server: S3Server, bucket: str
) -> None:
    kb = _kb(client, "objects")
    assert _backend_of(client.get_knowledge_base(kb.id)) == "objects"
    local_before = stored_files(stack)
    page = html_with_image("Cormorant")

    knowledge = client.upload_file(kb.id, io.BytesIO(page), file_name="cormorant.html")

    assert done(client, knowledge.id).parse_status == v1.ParseStatus.COMPLETED
    assert searchable_chunk_ids(client, kb.id, knowledge.id)
    objects = _objects_of(s3_server, bucket, knowledge.id)
    originals = [k for k in objects if k.endswith(".html")]
    images = [k for k in objects if k.endswith(".png")]
    assert len(originals) == 1 and len(images) == 1, sorted(objects)
    assert re.fullmatch(rf"[\w-]+/{knowledge.id}/[0-9a-f]{{32}}\.html", originals[0])
    assert re.fullmatch(rf"[\w-]+/exports/{knowledge.id}-[0-9a-f]{{16}}_\d+\.png", images[0])
    assert objects[originals[0]] == page
    assert objects[images[0]].startswith(b"\x89PNG")
    assert stored_files(stack) == local_before  # nothing went to the default backend
    # The chunks store the image's resource reference; ListChunks links it by a presigned
    # URL of the S3 endpoint, signed for this response, which serves it.
    links = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", _markdown(client, knowledge.id))
    assert links and all(link.startswith(f"{s3_server.endpoint}/{bucket}/") for link in links)
    with urllib.request.urlopen(links[0], timeout=10) as response:
        assert response.read() == objects[images[0]]

    client.delete_knowledge(knowledge.id)

    wait_until(lambda: not _objects_of(s3_server, bucket, knowledge.id), 60, "the bucket to empty")
    assert s3_server.pending_uploads(bucket) == []


def test_rebinding_sends_new_files_to_the_new_backend_and_old_ones_still_resolve(
    stack: Stack, client: SluiceClient, s3_server: S3Server, bucket: str
) -> None:
    kb = _kb(client)
    local_before = stored_files(stack)
    on_disk = client.upload_file(kb.id, io.BytesIO(notes("Gannet")), file_name="gannet.md")
    assert done(client, on_disk.id).parse_status == v1.ParseStatus.COMPLETED
    local_files = stored_files(stack) - local_before
    assert [p.suffix for p in local_files] == [".md"]
    assert not _objects_of(s3_server, bucket, on_disk.id)

    client.update_knowledge_base(kb.id, config=_bound_config("objects"))
    on_s3 = client.upload_file(kb.id, io.BytesIO(notes("Petrel")), file_name="petrel.md")

    assert done(client, on_s3.id).parse_status == v1.ParseStatus.COMPLETED
    assert [k.rsplit(".", 1)[-1] for k in _objects_of(s3_server, bucket, on_s3.id)] == ["md"]
    assert stored_files(stack) - local_before == local_files
    # The earlier file is still read from the disk: a reparse of it completes.
    client.reparse(on_disk.id)
    assert done(client, on_disk.id).parse_status == v1.ParseStatus.COMPLETED
    assert searchable_chunk_ids(client, kb.id, on_disk.id)

    client.delete_knowledge(on_disk.id)
    client.delete_knowledge(on_s3.id)

    wait_until(lambda: not _objects_of(s3_server, bucket, on_s3.id), 60, "the S3 object to go")
    wait_until(lambda: not any(p.exists() for p in local_files), 60, "the local file to go")


def test_unknown_storage_backends_are_refused_naming_the_known_ones(
    client: SluiceClient,
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        _kb(client, "nowhere")
    [(field, description)] = refused.value.field_violations
    assert field == "config.storage.backend_id"
    assert "'nowhere'" in description and "disk, objects, unreachable" in description

    kb = _kb(client)
    with pytest.raises(InvalidArgument):
        client.update_knowledge_base(kb.id, config=_bound_config("nowhere"))
    assert _backend_of(client.get_knowledge_base(kb.id)) == ""


def test_an_upload_to_a_backend_that_fails_is_unavailable_and_leaves_no_knowledge(
    client: SluiceClient,
) -> None:
    kb = _kb(client, "unreachable")  # its bucket does not exist (until the next test)
    with pytest.raises(Unavailable, match="file storage is unavailable"):
        client.upload_file(kb.id, io.BytesIO(notes("Skua")), file_name="skua.md")
    assert not list(client.list_knowledge(kb.id))


def test_health_reports_the_connectivity_of_each_storage_backend(
    stack: Stack, s3_server: S3Server
) -> None:
    expected = {
        "sluice.storage.disk": SERVING,
        "sluice.storage.objects": SERVING,
        "sluice.storage.unreachable": NOT_SERVING,
        "sluice.storage": NOT_SERVING,  # one backend down: storage is not fully serving
        "": SERVING,  # the API itself still is
    }
    with grpc.insecure_channel(stack.target) as channel:
        health = health_pb2_grpc.HealthStub(channel)

        def statuses() -> dict[str, int]:
            return {
                name: health.Check(health_pb2.HealthCheckRequest(service=name), timeout=10).status
                for name in expected
            }

        wait_until(lambda: statuses() == expected, 30, f"health {expected}")

        # The missing bucket appears: the next check finds every backend writable.
        missing = json.loads(stack.env["SLUICE_STORAGE_BACKENDS"])["unreachable"]["bucket"]
        s3_server.create_bucket(missing)
        recovered = dict.fromkeys(expected, SERVING)
        wait_until(lambda: statuses() == recovered, 30, f"health {recovered}")
