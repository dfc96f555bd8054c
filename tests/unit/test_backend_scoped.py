"""The backend-scoped wrapper (storage.files.backend_scoped): wrapping and unwrapping paths,
routing every operation to its backend, the write backend, and no copies across backends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from storage.files.backend_scoped import BackendScopedFileService, UnknownBackendError
from storage.files.base import FileNotFoundInStorage, StorageError, UnsafePathError
from storage.files.dummy import DummyFileService
from storage.files.local import LocalFileService

TENANT = "tenant-1"
KNOWLEDGE = "k-1"


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "a", tmp_path / "b"


@pytest.fixture
def files(dirs: tuple[Path, Path]) -> BackendScopedFileService:
    return BackendScopedFileService(
        {"disk-a": LocalFileService(dirs[0]), "disk-b": LocalFileService(dirs[1])}, "disk-a"
    )


def test_one_backend_keeps_the_backends_own_paths(tmp_path: Path) -> None:
    files = BackendScopedFileService({"local": LocalFileService(tmp_path)}, "local")
    stored = files.save_stream(TENANT, KNOWLEDGE, "a.pdf", [b"x"])
    assert not files.is_scoped
    assert stored.path.startswith(f"local://{TENANT}/{KNOWLEDGE}/")
    assert files.unwrap(stored.path) == ("local", stored.path)
    assert files.wrap("local", stored.path) == stored.path
    # A path written while a second backend was configured still resolves.
    assert files.read_bytes(f"storage://local/{stored.path}") == b"x"


def test_several_backends_wrap_every_path_they_hand_out(
    files: BackendScopedFileService, dirs: tuple[Path, Path]
) -> None:
    upload = files.begin_upload(TENANT, KNOWLEDGE, "a.pdf")
    upload.write(b"original")
    original = upload.commit().path
    image = files.save_bytes(TENANT, "figure.png", b"png")
    streamed = files.save_stream(TENANT, KNOWLEDGE, "b.txt", [b"text"]).path

    for path in (original, image, streamed):
        assert path.startswith("storage://disk-a/local://"), path
    layout = rf"storage://disk-a/local://{TENANT}/{KNOWLEDGE}/[0-9a-f]{{32}}\.pdf"
    assert re.fullmatch(layout, original)
    backend_id, inner = files.unwrap(original)
    assert backend_id == "disk-a"
    assert (dirs[0] / inner.removeprefix("local://")).read_bytes() == b"original"
    assert files.wrap(backend_id, inner) == original
    assert files.read_bytes(image) == b"png"
    with files.open(streamed) as stream:
        assert stream.read() == b"text"
    assert files.exists(original)
    assert files.url(original) == (dirs[0] / inner.removeprefix("local://")).resolve().as_uri()
    files.delete(original)
    assert not files.exists(original)


def test_for_backend_writes_there_and_reads_follow_the_path(
    files: BackendScopedFileService, dirs: tuple[Path, Path]
) -> None:
    on_a = files.save_bytes(TENANT, "a.txt", b"on a")
    bound = files.for_backend("disk-b")
    on_b = bound.save_bytes(TENANT, "b.txt", b"on b")

    assert bound.write_backend_id == "disk-b"
    assert on_b.startswith("storage://disk-b/local://")
    assert list(dirs[1].rglob("b_*.txt")) and not list(dirs[0].rglob("b_*.txt"))
    # Whichever view reads, each path goes to the backend that holds it.
    assert bound.read_bytes(on_a) == b"on a"
    assert files.read_bytes(on_b) == b"on b"
    assert files.for_backend("") is files
    assert files.for_backend("disk-a") is files


def test_copies_stay_inside_one_backend(files: BackendScopedFileService) -> None:
    on_a = files.save_stream(TENANT, KNOWLEDGE, "a.docx", [b"doc"]).path

    copy = files.copy(on_a, "tenant-2", "k-2")

    assert re.fullmatch(r"storage://disk-a/local://tenant-2/k-2/[0-9a-f]{32}\.docx", copy)
    assert files.read_bytes(copy) == b"doc"
    with pytest.raises(StorageError, match=r"across storage backends \(disk-a → disk-b\)"):
        files.for_backend("disk-b").copy(on_a, "tenant-2", "k-2")


def test_unprefixed_paths_from_before_go_to_the_default_backend_if_it_holds_them(
    dirs: tuple[Path, Path],
) -> None:
    legacy = LocalFileService(dirs[0]).save_stream(TENANT, KNOWLEDGE, "old.txt", [b"old"]).path
    assert legacy.startswith("local://")
    files = BackendScopedFileService(
        {"null": DummyFileService(), "disk": LocalFileService(dirs[0])}, "null"
    )

    # The default (dummy) does not hold local:// paths: the local backend does.
    assert files.unwrap(legacy) == ("disk", legacy)
    assert files.read_bytes(legacy) == b"old"
    files.delete(legacy)
    assert not files.exists(legacy)
    with pytest.raises(UnsafePathError, match="no configured storage backend holds"):
        files.read_bytes("s3://bucket/t/k/a.pdf")


def test_unprefixed_local_paths_go_to_the_local_backend_that_has_the_file(
    files: BackendScopedFileService, dirs: tuple[Path, Path]
) -> None:
    # Written when disk-b was the only backend: its paths carry no backend prefix, and both
    # local backends take local:// paths.
    on_b = LocalFileService(dirs[1]).save_stream(TENANT, KNOWLEDGE, "old.txt", [b"on b"]).path
    on_a = LocalFileService(dirs[0]).save_stream(TENANT, KNOWLEDGE, "old.txt", [b"on a"]).path

    assert files.unwrap(on_b) == ("disk-b", on_b)
    assert files.read_bytes(on_b) == b"on b"
    assert files.exists(on_b)
    assert files.unwrap(on_a) == ("disk-a", on_a)
    assert files.read_bytes(on_a) == b"on a"
    files.delete(on_b)
    assert not (dirs[1] / on_b.removeprefix("local://")).exists()
    assert not files.exists(on_b)
    # A file neither has reads as missing (on the default), and deleting it is a no-op.
    assert files.unwrap(on_b) == ("disk-a", on_b)
    with pytest.raises(FileNotFoundInStorage):
        files.read_bytes(on_b)
    files.delete(on_b)


@pytest.mark.parametrize(
    "path",
    [
        "storage://disk-a",
        "storage://disk-a/",
        "storage:///local://t/k/a.pdf",
        "storage://../local://t/k/a.pdf",
        "storage://disk-a/local://../../etc/passwd",
        "storage://disk-a/s3://bucket/t/k/a.pdf",
    ],
)
def test_malformed_or_unsafe_paths_are_refused(files: BackendScopedFileService, path: str) -> None:
    for operation in (files.read_bytes, files.exists, files.delete, files.url):
        with pytest.raises(UnsafePathError):
            operation(path)


def test_unknown_backends_are_named(files: BackendScopedFileService) -> None:
    with pytest.raises(UnknownBackendError, match="backend 's3'; known: disk-a, disk-b"):
        files.for_backend("s3")
    with pytest.raises(UnknownBackendError, match="'gone', which is not configured"):
        files.read_bytes("storage://gone/local://t/k/a.pdf")


def test_backend_ids_and_connectivity(files: BackendScopedFileService, tmp_path: Path) -> None:
    assert files.backend_ids == ("disk-a", "disk-b")
    assert files.default_backend_id == "disk-a"
    assert files.check_backends() == {"disk-a": None, "disk-b": None}
    files.check_connectivity()

    blocked = tmp_path / "blocked"
    broken = BackendScopedFileService(
        {"ok": DummyFileService(), "bad": LocalFileService(blocked)}, "ok"
    )
    (blocked / ".staging").write_bytes(b"a file where the staging directory must be")
    results = broken.check_backends()
    assert results["ok"] is None and isinstance(results["bad"], StorageError)
    with pytest.raises(StorageError, match=r"^bad: "):
        broken.check_connectivity()


def test_construction_checks_the_ids(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one"):
        BackendScopedFileService({}, "x")
    with pytest.raises(ValueError, match="default storage backend 'x'"):
        BackendScopedFileService({"y": DummyFileService()}, "x")
    with pytest.raises(ValueError, match="invalid storage backend id"):
        BackendScopedFileService({"a/b": DummyFileService()}, "a/b")
