"""S3FileService against a real S3 endpoint (moto's threaded server): the FileService
contract, multipart uploads, aborts that leave nothing, and hostile names and paths."""

from __future__ import annotations

import hashlib
import os
import re
import threading
import urllib.request
import uuid
from collections.abc import Iterator

import pytest
from botocore.exceptions import EndpointConnectionError

from storage.files.base import FileNotFoundInStorage, StorageError, UnsafePathError
from storage.files.s3 import PROBE_PREFIX, S3FileService, build_client
from storage.files.s3_config import MIN_PART_SIZE, S3Config
from tests.support.s3_server import S3Server

TENANT = "tenant-1"
KNOWLEDGE = "0b9a7c52-5b8e-4f5e-9d51-4c1b1a1d2e3f"
# S3's minimum part (moto enforces it too): an 11 MiB file is three parts.
PART = MIN_PART_SIZE
BIG = 2 * PART + (1 << 20)


@pytest.fixture
def bucket(s3_server: S3Server) -> str:
    return s3_server.new_bucket()


@pytest.fixture
def service(s3_server: S3Server, bucket: str) -> S3FileService:
    return S3FileService(s3_server.config(bucket, part_size=PART))


def key_of(path: str, bucket: str) -> str:
    prefix = f"s3://{bucket}/"
    assert path.startswith(prefix), path
    return path.removeprefix(prefix)


def frames(total: int, size: int = (1 << 20) + 17) -> Iterator[bytes]:
    """Random bytes in upload-sized frames (not aligned to the part size)."""
    sent = 0
    while sent < total:
        piece = os.urandom(min(size, total - sent))
        sent += len(piece)
        yield piece


def test_save_stream_stores_the_bytes_under_the_original_layout(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    pieces = [b"%PDF-1.7\n", os.urandom(70_000), b"%%EOF"]
    stored = service.save_stream(TENANT, KNOWLEDGE, "../../Quarterly.PDF", iter(pieces))

    whole = b"".join(pieces)
    assert re.fullmatch(rf"s3://{bucket}/{TENANT}/{KNOWLEDGE}/[0-9a-f]{{32}}\.pdf", stored.path)
    assert (stored.size, stored.md5) == (len(whole), hashlib.md5(whole).hexdigest())
    assert service.read_bytes(stored.path) == whole
    with service.open(stored.path) as file:
        assert file.read(8) == b"%PDF-1.7"
        assert file.read() == whole[8:]
    assert service.exists(stored.path)
    assert s3_server.objects(bucket) == {key_of(stored.path, bucket): whole}
    head = s3_server.client.head_object(Bucket=bucket, Key=key_of(stored.path, bucket))
    assert head["ContentType"] == "application/pdf"


def test_a_small_upload_is_invisible_until_commit_and_is_one_put(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    upload = service.begin_upload(TENANT, KNOWLEDGE, "a.txt")
    expected = hashlib.md5()
    for piece in frames(PART - 1, size=300_001):
        upload.write(piece)
        expected.update(piece)
    assert (upload.size, upload.md5_hex) == (PART - 1, expected.hexdigest())
    assert s3_server.keys(bucket) == []
    assert s3_server.pending_uploads(bucket) == []  # under one part: no multipart upload

    stored = upload.commit()

    assert hashlib.md5(service.read_bytes(stored.path)).hexdigest() == expected.hexdigest()
    with pytest.raises(StorageError):
        upload.write(b"late")


def test_a_large_upload_is_a_real_multipart_upload_published_at_commit(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    upload = service.begin_upload(TENANT, KNOWLEDGE, "big.bin")
    expected = hashlib.md5()
    for piece in frames(BIG):
        upload.write(piece)
        expected.update(piece)
    key = re.escape(f"{TENANT}/{KNOWLEDGE}/")
    # Two full parts went up while writing; the object does not exist yet.
    assert s3_server.keys(bucket) == []
    assert len(pending := s3_server.pending_uploads(bucket)) == 1
    assert re.fullmatch(rf"{key}[0-9a-f]{{32}}\.bin", pending[0])

    stored = upload.commit()

    assert (stored.size, stored.md5) == (BIG, expected.hexdigest())
    assert s3_server.pending_uploads(bucket) == []
    assert hashlib.md5(service.read_bytes(stored.path)).hexdigest() == expected.hexdigest()
    head = s3_server.client.head_object(Bucket=bucket, Key=key_of(stored.path, bucket))
    assert head["ETag"].strip('"').endswith("-3")  # S3's mark of a three-part object
    assert head["ContentLength"] == BIG


def test_aborting_a_multipart_upload_leaves_no_object_and_no_pending_upload(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    upload = service.begin_upload(TENANT, KNOWLEDGE, "big.bin")
    for piece in frames(BIG):
        upload.write(piece)
    assert s3_server.pending_uploads(bucket)

    upload.abort()
    upload.abort()  # idempotent

    assert s3_server.keys(bucket) == []
    assert s3_server.pending_uploads(bucket) == []
    with pytest.raises(StorageError):
        upload.write(b"more")
    with pytest.raises(StorageError):
        upload.commit()


def test_a_stream_that_breaks_midway_leaves_nothing(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    def broken() -> Iterator[bytes]:
        yield from frames(BIG - 1000)
        raise ConnectionError("client went away")

    with pytest.raises(ConnectionError):
        service.save_stream(TENANT, KNOWLEDGE, "big.bin", broken())
    assert s3_server.keys(bucket) == []
    assert s3_server.pending_uploads(bucket) == []


def test_a_failing_commit_aborts_the_multipart_upload(s3_server: S3Server, bucket: str) -> None:
    config = s3_server.config(bucket, part_size=PART)
    client = build_client(config)

    def connection_lost(**_: object) -> None:
        # Fault injection through botocore's own event hooks: the completing request never
        # reaches the server, as when the network drops at that moment.
        raise EndpointConnectionError(endpoint_url=s3_server.endpoint)

    client.meta.events.register("before-send.s3.CompleteMultipartUpload", connection_lost)
    upload = S3FileService(config, client=client).begin_upload(TENANT, KNOWLEDGE, "big.bin")
    for piece in frames(BIG):
        upload.write(piece)
    assert s3_server.pending_uploads(bucket)

    with pytest.raises(StorageError, match="completing the upload"):
        upload.commit()

    assert s3_server.keys(bucket) == []
    assert s3_server.pending_uploads(bucket) == []


def test_concurrent_uploads_share_one_service(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    results: dict[int, tuple[str, str]] = {}
    errors: list[BaseException] = []

    def upload(n: int) -> None:
        try:
            data = b"".join(frames(BIG + n * 12345))
            stored = service.save_stream(TENANT, KNOWLEDGE, f"f{n}.bin", iter([data]))
            results[n] = (stored.path, hashlib.md5(data).hexdigest())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=upload, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    for path, md5 in results.values():
        assert hashlib.md5(service.read_bytes(path)).hexdigest() == md5
    assert len(s3_server.keys(bucket)) == 3
    assert s3_server.pending_uploads(bucket) == []


def test_save_bytes_uses_the_exports_layout_and_the_temporary_bucket(
    s3_server: S3Server, bucket: str
) -> None:
    temp_bucket = s3_server.new_bucket("sluice-tmp")
    service = S3FileService(s3_server.config(bucket, temp_bucket=temp_bucket))

    kept = service.save_bytes(TENANT, "../img/Figure 1.PNG", b"\x89PNG kept")
    short_lived = service.save_bytes(TENANT, "scratch.json", b"{}", temp=True)

    assert re.fullmatch(rf"s3://{bucket}/{TENANT}/exports/Figure 1_\d{{19}}\.png", kept), kept
    assert re.fullmatch(rf"s3://{temp_bucket}/{TENANT}/exports/scratch_\d{{19}}\.json", short_lived)
    assert service.read_bytes(kept) == b"\x89PNG kept"
    assert service.read_bytes(short_lived) == b"{}"
    assert s3_server.keys(temp_bucket) == [key_of(short_lived, temp_bucket)]
    # Without a temporary bucket, temp files go to the main one.
    plain = S3FileService(s3_server.config(bucket))
    assert plain.save_bytes(TENANT, "x.txt", b"x", temp=True).startswith(f"s3://{bucket}/")


def test_copy_is_a_server_side_copy_to_a_new_original(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    small = service.save_stream(TENANT, KNOWLEDGE, "a.docx", [b"content"])
    big_data = b"".join(frames(BIG))
    big = service.save_stream(TENANT, KNOWLEDGE, "b.bin", [big_data])

    small_copy = service.copy(small.path, "tenant-2", "k2")
    big_copy = service.copy(big.path, "tenant-2", "k2")

    assert re.fullmatch(rf"s3://{bucket}/tenant-2/k2/[0-9a-f]{{32}}\.docx", small_copy)
    service.delete(small.path)
    service.delete(big.path)
    assert service.read_bytes(small_copy) == b"content"
    assert service.read_bytes(big_copy) == big_data
    assert s3_server.pending_uploads(bucket) == []
    with pytest.raises(FileNotFoundInStorage):
        service.copy(small.path, "tenant-2", "k2")


def test_delete_and_missing_files(service: S3FileService) -> None:
    stored = service.save_stream(TENANT, KNOWLEDGE, "a.txt", [b"x"])
    service.delete(stored.path)
    service.delete(stored.path)  # missing is fine
    assert not service.exists(stored.path)
    with pytest.raises(FileNotFoundInStorage):
        service.read_bytes(stored.path)
    with pytest.raises(FileNotFoundInStorage):
        service.open(stored.path)


def test_url_is_a_presigned_get_or_the_public_base(s3_server: S3Server, bucket: str) -> None:
    service = S3FileService(s3_server.config(bucket, url_expiry_s=600))
    stored = service.save_stream(TENANT, KNOWLEDGE, "a b.png", [b"\x89PNG image"])

    url = service.url(stored.path)

    assert "X-Amz-Signature=" in url and "X-Amz-Expires=600" in url
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.read() == b"\x89PNG image"
    public = S3FileService(s3_server.config(bucket, public_base_url="https://cdn.example/"))
    assert public.url(stored.path) == f"https://cdn.example/{key_of(stored.path, bucket)}"


def test_check_connectivity_writes_a_probe_and_removes_it(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    service.check_connectivity()
    assert not [k for k in s3_server.keys(bucket) if k.startswith(PROBE_PREFIX)]

    with pytest.raises(StorageError, match="NoSuchBucket"):
        S3FileService(s3_server.config("sluice-no-such-bucket")).check_connectivity()
    with pytest.raises(StorageError):
        S3FileService(
            s3_server.config(bucket, temp_bucket="sluice-no-such-temp")
        ).check_connectivity()
    unreachable = S3Config(
        bucket=bucket,
        endpoint="http://127.0.0.1:9",
        addressing_style="path",
        access_key="x",
        secret_key="y",
        connect_timeout_s=2,
    )
    with pytest.raises(StorageError):
        S3FileService(unreachable).check_connectivity()


def test_periodic_checks_head_the_bucket_and_write_a_probe_only_first_and_after_a_failure(
    s3_server: S3Server,
) -> None:
    name = f"sluice-versioned-{uuid.uuid4().hex[:12]}"
    service = S3FileService(s3_server.config(name))
    with pytest.raises(StorageError):
        service.check_connectivity()  # no bucket yet
    s3_server.create_bucket(name)
    s3_server.client.put_bucket_versioning(
        Bucket=name, VersioningConfiguration={"Status": "Enabled"}
    )

    def probe_versions() -> tuple[int, int]:
        listed = s3_server.client.list_object_versions(Bucket=name, Prefix=PROBE_PREFIX)
        return len(listed.get("Versions", [])), len(listed.get("DeleteMarkers", []))

    try:
        for _ in range(5):
            service.check_connectivity()
        # A versioned bucket keeps every probe written: one, after the failed check.
        assert probe_versions() == (1, 1)
        # The bucket goes: the HEAD notices; once it is back, writes are proven again.
        _empty_versions(s3_server, name)
        s3_server.client.delete_bucket(Bucket=name)
        with pytest.raises(StorageError):
            service.check_connectivity()
        s3_server.client.create_bucket(Bucket=name)
        s3_server.client.put_bucket_versioning(
            Bucket=name, VersioningConfiguration={"Status": "Enabled"}
        )
        service.check_connectivity()
        service.check_connectivity()
        assert probe_versions() == (1, 1)
    finally:
        _empty_versions(s3_server, name)


def _empty_versions(s3_server: S3Server, bucket: str) -> None:
    listed = s3_server.client.list_object_versions(Bucket=bucket)
    for entry in [*listed.get("Versions", []), *listed.get("DeleteMarkers", [])]:
        s3_server.client.delete_object(
            Bucket=bucket, Key=entry["Key"], VersionId=entry["VersionId"]
        )


@pytest.mark.parametrize(
    "suffix",
    [
        "../../etc/passwd",
        "/etc/passwd",
        "t/../../outside.txt",
        "t/./a.txt",
        "t//a.txt",
        "t\\..\\..\\x",
        "t/a\x00.txt",
        "t/evil\u202egpj.exe",
        "",
        "t/" + "a" * 1100,
    ],
)
def test_unsafe_keys_in_paths_are_refused(service: S3FileService, bucket: str, suffix: str) -> None:
    path = f"s3://{bucket}/{suffix}"
    for operation in (service.read_bytes, service.exists, service.delete, service.url):
        with pytest.raises(UnsafePathError):
            operation(path)
    with pytest.raises(UnsafePathError):
        service.copy(path, TENANT, KNOWLEDGE)


@pytest.mark.parametrize(
    "path",
    ["s3://someone-elses-bucket/t/k/a.pdf", "local://t/k/a.pdf", "/etc/passwd", "s3:/x/y"],
)
def test_paths_outside_this_backend_are_refused(service: S3FileService, path: str) -> None:
    assert not service.owns(path)
    for operation in (service.read_bytes, service.exists, service.delete, service.url):
        with pytest.raises(UnsafePathError):
            operation(path)


@pytest.mark.parametrize(
    ("name", "extension"),
    [
        ("../../etc/passwd", ""),
        ("a\x00b.pdf", ".pdf"),
        ("evil\u202egpj.exe", ".exe"),
        ("\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fsecret.txt", ".txt"),
        ("отчёт за 2024.PDF", ".pdf"),
        ("x" * 5000 + ".docx", ".docx"),
    ],
)
def test_odd_original_names_are_stored_under_the_expected_key(
    service: S3FileService, s3_server: S3Server, bucket: str, name: str, extension: str
) -> None:
    stored = service.save_stream(TENANT, KNOWLEDGE, name, [b"data"])

    key = key_of(stored.path, bucket)
    assert re.fullmatch(rf"{TENANT}/{KNOWLEDGE}/[0-9a-f]{{32}}{re.escape(extension)}", key)
    assert s3_server.keys(bucket) == [key]
    assert service.read_bytes(stored.path) == b"data"


@pytest.mark.parametrize(
    ("name", "stem", "extension"),
    [
        ("../../etc/passwd", "passwd", ""),
        ("a\x00b.png", "ab", ".png"),
        ("evil\u202egpj.png", "evilgpj", ".png"),
        ("图表 1.PNG", "图表 1", ".png"),
        ("..", "file", ""),
    ],
)
def test_odd_export_names_are_stored_under_a_safe_key(
    service: S3FileService,
    s3_server: S3Server,
    bucket: str,
    name: str,
    stem: str,
    extension: str,
) -> None:
    path = service.save_bytes(TENANT, name, b"bytes")

    key = key_of(path, bucket)
    assert re.fullmatch(rf"{TENANT}/exports/{re.escape(stem)}_\d{{19}}{re.escape(extension)}", key)
    assert s3_server.keys(bucket) == [key]
    assert service.read_bytes(path) == b"bytes"


def test_a_very_long_export_name_is_cut_to_fit(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    path = service.save_bytes(TENANT, "я" * 3000 + ".png", b"bytes")
    key = key_of(path, bucket)
    assert key.endswith(".png") and len(key.encode()) < 300
    assert s3_server.keys(bucket) == [key]


def test_unsafe_tenant_or_knowledge_ids_are_refused(
    service: S3FileService, s3_server: S3Server, bucket: str
) -> None:
    with pytest.raises(UnsafePathError):
        service.begin_upload("../other", KNOWLEDGE, "a.pdf")
    with pytest.raises(UnsafePathError):
        service.save_stream(TENANT, "..", "a.pdf", [b"x"])
    with pytest.raises(UnsafePathError):
        service.save_bytes("a/b", "x.png", b"x")
    assert s3_server.keys(bucket) == []
