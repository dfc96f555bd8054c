"""Messages users read name no temporary paths (issue: "error messages never show internal
temp paths")."""

from __future__ import annotations

import tempfile

import pytest

from core.public_text import TEMPORARY_FILE, without_temp_paths

SPOOL = f"{tempfile.gettempdir()}/sluice-read-k2j4/input.pdf"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            f"[Errno 2] No such file or directory: '{SPOOL}'",
            f"[Errno 2] No such file or directory: '{TEMPORARY_FILE}'",
        ),
        (
            "LibreOffice could not convert 'report.doc' to docx: Error: source file could not "
            "be loaded (file:///tmp/sluice-lo-x1/report.doc)",
            "LibreOffice could not convert 'report.doc' to docx: Error: source file could not "
            f"be loaded ({TEMPORARY_FILE})",
        ),
        (f"cannot identify image file {SPOOL}", f"cannot identify image file {TEMPORARY_FILE}"),
        ("/var/tmp/x and /dev/shm/y", f"{TEMPORARY_FILE} and {TEMPORARY_FILE}"),
    ],
)
def test_temporary_paths_become_a_placeholder(message: str, expected: str) -> None:
    assert without_temp_paths(message) == expected


def test_other_text_is_left_as_it_is() -> None:
    message = "docreader: report.pdf is not a valid PDF (no /Root object), see /docs/pdf"
    assert without_temp_paths(message) == message


def test_a_temp_like_name_inside_another_path_is_not_a_temp_path() -> None:
    message = "see /home/ana/tmp/notes.md and /tmpfiles/a"
    assert without_temp_paths(message) == message
