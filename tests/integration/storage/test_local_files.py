"""LocalFileService on a real directory (and the DummyFileService contract)."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.files.base import (
    FileNotFoundInStorage,
    FileService,
    StorageError,
    UnsafePathError,
)
from storage.files.dummy import DummyFileService
from storage.files.local import STAGING_DIR, LocalFileService

TENANT = "tenant-1"
KNOWLEDGE = "0b9a7c52-5b8e-4f5e-9d51-4c1b1a1d2e3f"


def files_under(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file())


def data_files(base: Path) -> list[Path]:
    """Everything stored, not counting the staging area."""
    return [p for p in files_under(base) if STAGING_DIR not in p.relative_to(base).parts]


@pytest.fixture
def base(tmp_path: Path) -> Path:
    return tmp_path / "files"


@pytest.fixture
def service(base: Path) -> FileService:
    return LocalFileService(base)


def test_save_stream_stores_the_bytes_under_the_original_layout(
    service: FileService, base: Path
) -> None:
    pieces = [b"%PDF-1.7\n", os.urandom(70_000), b"%%EOF"]
    stored = service.save_stream(TENANT, KNOWLEDGE, "../../Quarterly.PDF", iter(pieces))

    whole = b"".join(pieces)
    assert re.fullmatch(rf"local://{TENANT}/{KNOWLEDGE}/[0-9a-f]{{32}}\.pdf", stored.path)
    assert (stored.size, stored.md5) == (len(whole), hashlib.md5(whole).hexdigest())
    assert service.read_bytes(stored.path) == whole
    with service.open(stored.path) as file:
        assert file.read(8) == b"%PDF-1.7"
    assert service.exists(stored.path)
    assert data_files(base) == [base.resolve() / stored.path.removeprefix("local://")]


def test_upload_hashes_incrementally_and_is_invisible_until_commit(
    service: FileService, base: Path
) -> None:
    upload = service.begin_upload(TENANT, KNOWLEDGE, "big.bin")
    expected = hashlib.md5()
    total = 0
    for _ in range(40):
        piece = os.urandom(64 * 1024 + 17)
        upload.write(piece)
        expected.update(piece)
        total += len(piece)
        assert (upload.size, upload.md5_hex) == (total, expected.hexdigest())
    assert data_files(base) == []  # nothing at any final path yet

    stored = upload.commit()

    assert (stored.size, stored.md5) == (total, expected.hexdigest())
    assert hashlib.md5(service.read_bytes(stored.path)).hexdigest() == expected.hexdigest()
    assert files_under(base / STAGING_DIR) == []  # the staging file became the final file
    with pytest.raises(StorageError):
        upload.write(b"late")


def test_commit_publishes_by_rename_so_readers_never_see_a_partial_file(
    service: FileService, base: Path
) -> None:
    upload = service.begin_upload(TENANT, KNOWLEDGE, "a.txt")
    upload.write(b"first half ")
    staged = files_under(base / STAGING_DIR)
    assert len(staged) == 1
    inode = staged[0].stat().st_ino
    upload.write(b"second half")

    stored = upload.commit()

    final = base.resolve() / stored.path.removeprefix("local://")
    assert final.read_bytes() == b"first half second half"
    # Same inode: the complete staging file was renamed into place, not copied piecemeal.
    assert final.stat().st_ino == inode


def test_abort_leaves_nothing_behind(service: FileService, base: Path) -> None:
    upload = service.begin_upload(TENANT, KNOWLEDGE, "a.pdf")
    upload.write(os.urandom(10_000))
    upload.abort()
    upload.abort()  # idempotent
    assert files_under(base) == []


def test_an_exception_inside_the_upload_block_aborts_it(base: Path) -> None:
    service = LocalFileService(base)
    with pytest.raises(RuntimeError), service.begin_upload(TENANT, KNOWLEDGE, "a.pdf") as upload:
        upload.write(b"partial")
        raise RuntimeError("client went away")
    assert files_under(base) == []


def test_save_stream_that_fails_midway_leaves_nothing(service: FileService, base: Path) -> None:
    def broken_stream() -> Iterator[bytes]:
        yield b"some bytes"
        raise ConnectionError("stream broke")

    with pytest.raises(ConnectionError):
        service.save_stream(TENANT, KNOWLEDGE, "a.pdf", broken_stream())
    assert files_under(base) == []


def test_save_bytes_uses_the_exports_layout(service: FileService) -> None:
    path = service.save_bytes(TENANT, "../img/Figure 1.PNG", b"\x89PNG", temp=True)
    assert re.fullmatch(rf"local://{TENANT}/exports/Figure 1_\d{{19}}\.png", path), path
    assert service.read_bytes(path) == b"\x89PNG"


def test_copy_makes_an_independent_original_for_another_knowledge(service: FileService) -> None:
    stored = service.save_stream(TENANT, KNOWLEDGE, "a.docx", [b"content"])
    copy = service.copy(stored.path, "tenant-2", "k2")
    assert re.fullmatch(r"local://tenant-2/k2/[0-9a-f]{32}\.docx", copy)
    service.delete(stored.path)
    assert service.read_bytes(copy) == b"content"
    with pytest.raises(FileNotFoundInStorage):
        service.copy(stored.path, "tenant-2", "k2")


def test_delete_and_missing_files(service: FileService) -> None:
    stored = service.save_stream(TENANT, KNOWLEDGE, "a.txt", [b"x"])
    service.delete(stored.path)
    service.delete(stored.path)  # missing is fine
    assert not service.exists(stored.path)
    with pytest.raises(FileNotFoundInStorage):
        service.read_bytes(stored.path)
    with pytest.raises(FileNotFoundInStorage):
        service.open(f"local://{TENANT}/{KNOWLEDGE}")  # a directory is not a file


def test_a_folder_goes_with_its_last_file_and_a_tenants_folder_stays(
    service: FileService, base: Path
) -> None:
    first = service.save_stream(TENANT, KNOWLEDGE, "a.txt", [b"a"])
    second = service.save_stream(TENANT, KNOWLEDGE, "b.txt", [b"b"])
    folder = base.resolve() / TENANT / KNOWLEDGE
    service.delete(first.path)
    assert folder.is_dir()  # b.txt is still there
    service.delete(second.path)
    assert not folder.exists() and (base.resolve() / TENANT).is_dir()
    again = service.save_stream(TENANT, KNOWLEDGE, "c.txt", [b"c"])
    assert service.read_bytes(again.path) == b"c"


@pytest.mark.parametrize(
    "path",
    [
        "local://../../etc/passwd",
        "local:///etc/passwd",
        "local://t/../../outside.txt",
        "local://t\\..\\..\\x",
        "local://t/a\x00.txt",
        "local://",
        f"local://{STAGING_DIR}/x.part",
        "s3://bucket/t/k/a.pdf",
        "/etc/passwd",
    ],
)
def test_paths_outside_the_base_are_refused(service: FileService, path: str) -> None:
    for operation in (service.read_bytes, service.exists, service.delete, service.url):
        with pytest.raises(UnsafePathError):
            operation(path)


def test_symlinks_cannot_lead_out_of_the_base(service: FileService, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"secret")
    link_dir = tmp_path / "files" / TENANT
    link_dir.mkdir(parents=True)
    (link_dir / "link").symlink_to(outside, target_is_directory=True)

    with pytest.raises(UnsafePathError):
        service.read_bytes(f"local://{TENANT}/link/secret.txt")


def test_unsafe_tenant_or_knowledge_ids_are_refused(service: FileService, base: Path) -> None:
    with pytest.raises(UnsafePathError):
        service.begin_upload("../other", KNOWLEDGE, "a.pdf")
    with pytest.raises(UnsafePathError):
        service.save_stream(TENANT, "..", "a.pdf", [b"x"])
    assert files_under(base) == []


def test_url(base: Path) -> None:
    stored = LocalFileService(base).save_stream(TENANT, KNOWLEDGE, "a b.pdf", [b"x"])
    key = stored.path.removeprefix("local://")
    assert LocalFileService(base).url(stored.path) == (base.resolve() / key).as_uri()
    public = LocalFileService(base, public_base_url="https://files.example/")
    assert public.url(stored.path) == f"https://files.example/{key}"


def test_check_connectivity(base: Path) -> None:
    LocalFileService(base).check_connectivity()
    broken = LocalFileService(base / "broken")
    (base / "broken" / STAGING_DIR).write_bytes(b"a file where a directory must be")
    with pytest.raises(StorageError):
        broken.check_connectivity()


def test_dummy_service_measures_but_stores_nothing() -> None:
    dummy: FileService = DummyFileService()
    stored = dummy.save_stream(TENANT, KNOWLEDGE, "a.PDF", [b"ab", b"c"])
    assert (stored.size, stored.md5) == (3, hashlib.md5(b"abc").hexdigest())
    assert stored.path.startswith(f"dummy://{TENANT}/{KNOWLEDGE}/") and stored.path.endswith(".pdf")
    assert not dummy.exists(stored.path)
    with pytest.raises(FileNotFoundInStorage):
        dummy.read_bytes(stored.path)
    dummy.check_connectivity()
