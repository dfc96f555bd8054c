"""Key layout and the sanitising of names and paths (storage.files.keys)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from storage.files.base import UnsafePathError
from storage.files.keys import (
    MAX_NAME_BYTES,
    export_key,
    file_extension,
    original_key,
    safe_file_name,
    safe_object_key,
    safe_path_under_base,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("Report.PDF", "Report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("/etc/passwd", "passwd"),
        ("C:\\Windows\\System32\\cmd.EXE", "cmd.exe"),
        ("a\x00b.pdf", "ab.pdf"),
        ("line\nbreak\t.txt", "linebreak.txt"),
        # Right-to-left override: "evil\u202egpj.exe" displays as "evilexe.jpg".
        ("evil\u202egpj.exe", "evilgpj.exe"),
        ("zero\u200bwidth.txt", "zerowidth.txt"),
        # Fullwidth dots and solidus fold (NFKC) into a real traversal, which is then cut.
        ("\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fsecret.txt", "secret.txt"),
        ("\ufb01le.txt", "file.txt"),
        ("a..b.pdf", "a.b.pdf"),
        (".bashrc", "bashrc"),
        ("..", "file"),
        ("...", "file"),
        ("", "file"),
        ("/", "file"),
        ("dir/", "file"),
        ('a<b>:c"d|e?f*.txt', "a_b__c_d_e_f_.txt"),
        ("  spaced   name  .md", "spaced name.md"),
        ("archive.tar.GZ", "archive.tar.gz"),
        ("no-extension", "no-extension"),
        ("odd.Ext-With-Dash", "odd.Ext-With-Dash"),
        ("отчёт.DOCX", "отчёт.docx"),
    ],
)
def test_safe_file_name(raw: str, expected: str) -> None:
    assert safe_file_name(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "x" * 1000 + ".pdf",
        "я" * 400 + ".docx",
        "😀" * 300 + ".png",
        "x" * 1000,
    ],
)
def test_very_long_names_fit_and_keep_their_extension(raw: str) -> None:
    name = safe_file_name(raw)
    assert len(name.encode("utf-8")) <= MAX_NAME_BYTES
    assert name.endswith(Path(raw).suffix)
    assert len(name) > len(Path(raw).suffix)


@pytest.mark.parametrize(
    "raw",
    ["../../etc/passwd", "..\\..\\boot.ini", "\x00", ". .", "a/../..", "\u2025", "\ufe52\ufe52"],
)
def test_sanitised_names_are_single_plain_segments(raw: str) -> None:
    name = safe_file_name(raw)
    assert name and "/" not in name and "\\" not in name and "\x00" not in name
    assert ".." not in name and not name.startswith(".")


def test_file_extension() -> None:
    assert file_extension("A.PDF") == ".pdf"
    assert file_extension("../x.Md") == ".md"
    assert file_extension("README") == ""
    assert file_extension(".env") == ""


def test_original_key_layout() -> None:
    key = original_key("tenant-1", "3f0c2a8e-0000-4000-8000-000000000000", "../Scan.PDF")
    assert re.fullmatch(r"tenant-1/3f0c2a8e-0000-4000-8000-000000000000/[0-9a-f]{32}\.pdf", key), (
        key
    )
    assert original_key("t", "k", "a.pdf") != original_key("t", "k", "a.pdf")


def test_export_key_layout() -> None:
    key = export_key("tenant-1", "../../Failed Rows.CSV")
    assert re.fullmatch(r"tenant-1/exports/Failed Rows_\d{19}\.csv", key), key


@pytest.mark.parametrize("segment", ["", ".", "..", "../x", "a/b", "a\\b", "/abs", "a\x00"])
def test_unsafe_ids_are_rejected_as_key_segments(segment: str) -> None:
    with pytest.raises(UnsafePathError):
        original_key(segment, "k", "a.pdf")
    with pytest.raises(UnsafePathError):
        original_key("t", segment, "a.pdf")
    with pytest.raises(UnsafePathError):
        export_key(segment, "a.pdf")


def test_safe_path_under_base_accepts_nested_paths(tmp_path: Path) -> None:
    assert safe_path_under_base(tmp_path, "t/k/a.pdf") == tmp_path.resolve() / "t/k/a.pdf"


@pytest.mark.parametrize(
    "relative",
    ["", ".", "../x", "t/../../x", "/etc/passwd", "t\\..\\..\\x", "t/a\x00.pdf", "t/.."],
)
def test_safe_path_under_base_rejects_traversal(tmp_path: Path, relative: str) -> None:
    with pytest.raises(UnsafePathError):
        safe_path_under_base(tmp_path / "base", relative)


def test_safe_path_under_base_rejects_symlink_escapes(tmp_path: Path) -> None:
    base, outside = tmp_path / "base", tmp_path / "outside"
    (base / "t").mkdir(parents=True)
    outside.mkdir()
    (base / "t" / "escape").symlink_to(outside, target_is_directory=True)
    (base / "t" / "inside").symlink_to(base / "t", target_is_directory=True)

    with pytest.raises(UnsafePathError):
        safe_path_under_base(base, "t/escape/secret.txt")
    assert safe_path_under_base(base, "t/inside/a.txt") == (base / "t" / "a.txt").resolve()


@pytest.mark.parametrize(
    "key",
    ["t/k/0123.pdf", "t/exports/图表 1_1722045600000000000.png", ".sluice-probe/abc", "a" * 1024],
)
def test_plain_object_keys_are_accepted(key: str) -> None:
    assert safe_object_key(key) == key


@pytest.mark.parametrize(
    "key",
    [
        "",
        "/etc/passwd",
        "../../etc/passwd",
        "t/../x",
        "t/./x",
        "t//x",
        "t/",
        "t\\..\\x",
        "t/a\x00b",
        "t/a\nb",
        "t/evil\u202egpj.exe",
        "t/zero\u200bwidth",
        "a" * 1025,
        "я" * 513,
    ],
)
def test_object_keys_that_could_not_have_been_written_are_refused(key: str) -> None:
    with pytest.raises(UnsafePathError):
        safe_object_key(key)
