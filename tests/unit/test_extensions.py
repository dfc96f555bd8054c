"""The one extension gate every import path asks."""

from __future__ import annotations

import pytest

from core.extensions import (
    SUPPORTED_IMPORT_EXTENSIONS,
    VIDEO_NOT_SUPPORTED,
    UnsupportedFileType,
    file_type_of,
    validate_import_file_type,
)

# Copied as text from the spec's table, so a typo on either side shows.
SPEC_LIST = """pdf txt docx doc epub html htm mhtml md markdown xmind png jpg jpeg gif csv xlsx
xls pptx ppt json mp3 wav m4a flac ogg""".split()  # noqa: SIM905


def test_the_gate_is_exactly_the_spec_list() -> None:
    assert sorted(SUPPORTED_IMPORT_EXTENSIONS) == sorted(SPEC_LIST)


@pytest.mark.parametrize("name", ["Report.PDF", "a.b.md", "dir/notes.markdown", "x\\y.CSV"])
def test_supported_names_give_their_lower_case_type(name: str) -> None:
    assert validate_import_file_type(name) == name.rsplit(".", 1)[1].lower()


@pytest.mark.parametrize("name", ["clip.mp4", "movie.MOV", "a.webm"])
def test_video_gets_its_explicit_message(name: str) -> None:
    with pytest.raises(UnsupportedFileType, match=VIDEO_NOT_SUPPORTED):
        validate_import_file_type(name)


@pytest.mark.parametrize(
    ("name", "reason"), [("tool.exe", "'exe' is not supported"), ("README", "has no extension")]
)
def test_other_names_say_why(name: str, reason: str) -> None:
    with pytest.raises(UnsupportedFileType, match=reason):
        validate_import_file_type(name)


def test_file_type_of_ignores_directories() -> None:
    assert file_type_of("a.dir/file") == ""
