"""The extension gate on URL imports: what a URL downloads (or that it is a page), and the
re-check on what the server actually sent — headers and first bytes."""

from __future__ import annotations

import re

import pytest

from core.extensions import VIDEO_NOT_SUPPORTED, UnsupportedFileType, url_file_type
from workers.pipeline.download_gate import (
    DownloadName,
    check_first_bytes,
    check_page_type,
    checked_download,
    planned_download,
)

GATE_SAYS_EXE = "file type 'exe' is not supported; supported: csv, doc"


@pytest.mark.parametrize(
    ("path", "file_name", "file_type", "expected"),
    [
        ("/docs/Report.PDF", "", "", "pdf"),
        ("/a/b/sheet.xlsx", "", "", "xlsx"),
        ("/reports%20q1/notes%2Emd", "", "", "md"),
        ("/", "", "", None),
        ("", "", "", None),
        ("/blog/post.php", "", "", None),
        ("/docs/v1.2", "", "", None),
        ("/docs.pdf/", "", "", None),
        ("/download", "", "DOCX", "docx"),
        ("/download", "", ".csv", "csv"),
        ("/post.php", "Minutes.pptx", "", "pptx"),
        ("/report.pdf", "readme", "", "pdf"),
    ],
)
def test_the_gate_decides_file_download_or_web_page(
    path: str, file_name: str, file_type: str, expected: str | None
) -> None:
    assert url_file_type(path, file_name, file_type) == expected


@pytest.mark.parametrize(
    ("path", "file_name", "file_type", "message"),
    [
        ("/clip.mp4", "", "", VIDEO_NOT_SUPPORTED),
        ("/page", "", "mov", VIDEO_NOT_SUPPORTED),
        ("/page", "", "exe", "file type 'exe' is not supported"),
        ("/report.pdf", "setup.exe", "", "file type 'exe' is not supported"),
    ],
)
def test_an_explicit_type_or_a_known_url_extension_must_pass_the_gate(
    path: str, file_name: str, file_type: str, message: str
) -> None:
    with pytest.raises(UnsupportedFileType, match=message):
        url_file_type(path, file_name, file_type)


def test_the_planned_name_carries_the_type() -> None:
    assert planned_download("http://h/docs/Q1%20report.pdf?x=1") == DownloadName(
        "Q1 report.pdf", "pdf"
    )
    assert planned_download("http://h/get?id=7", file_type="docx") == DownloadName(
        "get.docx", "docx"
    )
    assert planned_download("http://h/", file_type="csv") == DownloadName("download.csv", "csv")
    assert planned_download("http://h/x", "../../etc/My Notes.md") == DownloadName(
        "My Notes.md", "md"
    )
    assert planned_download("http://h/article") is None


PLANNED = DownloadName("report.pdf", "pdf")


def _checked(
    final_url: str = "http://h/report.pdf",
    disposition: str = "",
    content_type: str = "application/pdf",
) -> DownloadName:
    return checked_download(
        PLANNED, final_url=final_url, content_disposition=disposition, content_type=content_type
    )


def test_headers_that_agree_keep_the_planned_name() -> None:
    assert _checked() == PLANNED
    assert _checked("http://cdn/abc123?sig=1", content_type="application/octet-stream") == PLANNED
    assert _checked("http://h/get.php", content_type="") == PLANNED
    assert _checked(disposition='attachment; filename="Other Name.pdf"') == PLANNED


def test_a_clue_that_changes_the_type_renames_the_file() -> None:
    assert _checked(disposition="attachment; filename=minutes.docx") == DownloadName(
        "minutes.docx", "docx"
    )
    assert _checked(
        disposition="attachment; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.xlsx"
    ) == DownloadName("отчёт.xlsx", "xlsx")
    assert _checked("http://cdn/files/table.csv") == DownloadName("table.csv", "csv")


@pytest.mark.parametrize(
    ("final_url", "disposition", "content_type", "message"),
    [
        ("http://h/report.pdf", "attachment; filename=setup.exe", "", GATE_SAYS_EXE),
        ("http://h/report.pdf", 'inline; filename="../../x/run.sh"', "", "'sh' is not supported"),
        ("http://cdn/movie.mkv", "", "", VIDEO_NOT_SUPPORTED),
        (
            "http://h/report.pdf",
            "",
            "video/mp4",
            f"the server sent video/mp4: {VIDEO_NOT_SUPPORTED}",
        ),
        ("http://h/report.pdf", "", "video", f"the server sent video: {VIDEO_NOT_SUPPORTED}"),
        (
            "http://h/report.pdf",
            "",
            "application/x-msdownload",
            f"the server sent application/x-msdownload (a Windows executable): {GATE_SAYS_EXE}",
        ),
        ("http://h/report.pdf", "", "application/x-7z-compressed", "'7z' is not supported"),
    ],
)
def test_headers_naming_a_refused_type_are_refused(
    final_url: str, disposition: str, content_type: str, message: str
) -> None:
    with pytest.raises(UnsupportedFileType, match=re.escape(message)):
        _checked(final_url, disposition, content_type)


@pytest.mark.parametrize(
    ("head", "message"),
    [
        (
            b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00",
            f"the download is a Windows executable, not a pdf file: {GATE_SAYS_EXE}",
        ),
        (b"\x7fELF\x02\x01\x01\x00" + bytes(8), "an ELF executable"),
        (b"\xcf\xfa\xed\xfe" + bytes(12), "a Mach-O executable"),
        (b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00", VIDEO_NOT_SUPPORTED),
        (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01" + bytes(7), VIDEO_NOT_SUPPORTED),
        (b"RIFF\x00\x10\x00\x00AVI LIST", VIDEO_NOT_SUPPORTED),
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", "'heic' is not supported"),
        (b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(6), "a zip archive"),
        (b"\x1f\x8b\x08\x00" + bytes(12), "a gzip archive"),
        (b"Rar!\x1a\x07\x01\x00" + bytes(8), "a RAR archive"),
    ],
)
def test_first_bytes_of_a_refused_kind_are_refused_whatever_the_name(
    head: bytes, message: str
) -> None:
    with pytest.raises(UnsupportedFileType, match=message):
        check_first_bytes(head, "pdf")


@pytest.mark.parametrize(
    ("head", "file_type"),
    [
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0", "pdf"),
        (b"PK\x03\x04\x14\x00\x06\x00\x08\x00" + bytes(6), "docx"),
        (b"PK\x03\x04\x14\x00\x06\x00\x08\x00" + bytes(6), "epub"),
        (b"\x00\x00\x00\x20ftypM4A \x00\x00\x02\x00", "mp3"),
        (b"\x00\x00\x00\x20ftypmp42\x00\x00\x00\x00", "m4a"),
        (b"MZ Corp annual report, 2024 edition", "txt"),
        (b"<!doctype html>", "html"),
        (b"", "txt"),
    ],
)
def test_first_bytes_of_allowed_kinds_pass(head: bytes, file_type: str) -> None:
    check_first_bytes(head, file_type)


def test_a_web_page_must_answer_html() -> None:
    for content_type in ("text/html", "application/xhtml+xml", ""):
        check_page_type(content_type)
    with pytest.raises(UnsupportedFileType, match="answered application/pdf, not a web page"):
        check_page_type("application/pdf")
    with pytest.raises(UnsupportedFileType, match=VIDEO_NOT_SUPPORTED):
        check_page_type("video/webm")
    # A top-level type alone still says what came.
    with pytest.raises(UnsupportedFileType, match=f"answered video: {VIDEO_NOT_SUPPORTED}"):
        check_page_type("video")
    with pytest.raises(UnsupportedFileType, match="answered audio, not a web page"):
        check_page_type("audio")
