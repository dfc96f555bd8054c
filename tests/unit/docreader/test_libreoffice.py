"""LibreOffice conversion: .doc and .ppt made from generated docx/pptx with soffice are read
back; a timeout kills soffice and every process under it; concurrent conversions never share a
profile; a missing soffice is reported as an unavailable engine."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import docx
import pptx
import pytest
from docx.shared import Inches

from server.docreader.errors import EngineUnavailableError, InvalidRequestError, ParseError
from server.docreader.parser_contract import ParseOptions, parse_to_document
from server.docreader.parsers.office.libreoffice import (
    DocParser,
    PptParser,
    convert_with_libreoffice,
    libreoffice_available,
)
from server.docreader.parsers.office.lo_profiles import PROFILES_ENV, claimed_profile

# Starts with a dash and holds shell syntax: the converter must never pass it on as is.
HOSTILE_STEM = "-rf $(touch pwned); x"


@pytest.fixture(scope="module")
def profiles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One warm profile pool for the module: creating a profile costs about a second."""
    base = tmp_path_factory.mktemp("lo-profiles")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(PROFILES_ENV, str(base))
        yield base


@pytest.fixture(scope="module")
def legacy_doc(tmp_path_factory: pytest.TempPathFactory, profiles: Path) -> Path:
    work = tmp_path_factory.mktemp("doc")
    document = docx.Document()
    document.add_heading("Legacy Memo", 1)
    document.add_paragraph("The quarterly numbers are attached.")
    document.add_paragraph("Ship the release", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    table.style = "Table Grid"
    for index, cell in enumerate(cell for row in table.rows for cell in row.cells):
        cell.text = f"cell {index}"
        cell.width = Inches(2)
    # Word wants a paragraph after a table; LibreOffice drops a table that ends the body.
    document.add_paragraph("Signed, the board.")
    source = work / "memo.docx"
    document.save(str(source))
    converted = convert_with_libreoffice(source, "doc", work, 60)
    return converted.rename(work / f"{HOSTILE_STEM}.doc")


@pytest.fixture(scope="module")
def legacy_ppt(tmp_path_factory: pytest.TempPathFactory, profiles: Path) -> Path:
    work = tmp_path_factory.mktemp("ppt")
    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Launch Plan"
    slide.placeholders[1].text_frame.text = "Book the venue early"
    slide.notes_slide.notes_text_frame.text = "Remember the catering."
    source = work / "deck.pptx"
    presentation.save(str(source))
    converted = convert_with_libreoffice(source, "ppt", work, 60)
    return converted.rename(work / f"{HOSTILE_STEM}.ppt")


def test_doc_is_converted_and_parsed(legacy_doc: Path, tmp_path: Path) -> None:
    assert legacy_doc.read_bytes()[:4] == b"\xd0\xcf\x11\xe0"  # really the binary format
    parsed = parse_to_document(
        DocParser(), legacy_doc, ParseOptions(file_name=legacy_doc.name, work_dir=tmp_path)
    )
    assert "# Legacy Memo" in parsed.markdown
    assert "The quarterly numbers are attached." in parsed.markdown
    assert "- Ship the release" in parsed.markdown
    assert "| cell 0 | cell 1 |\n| --- | --- |\n| cell 2 | cell 3 |" in parsed.markdown
    assert parsed.markdown.endswith("Signed, the board.")
    assert not (Path.cwd() / "pwned").exists()


def test_ppt_is_converted_and_parsed(legacy_ppt: Path) -> None:
    assert legacy_ppt.read_bytes()[:4] == b"\xd0\xcf\x11\xe0"
    # No work_dir: the parser uses a temporary directory of its own.
    parsed = parse_to_document(PptParser(), legacy_ppt, ParseOptions(file_name=legacy_ppt.name))
    assert parsed.markdown.startswith("## Slide 1: Launch Plan")
    assert "Book the venue early" in parsed.markdown
    assert "> Notes: Remember the catering." in parsed.markdown
    assert parsed.metadata["slide_count"] == "1"


def test_unreadable_input_is_a_parse_error(tmp_path: Path, profiles: Path) -> None:
    # LibreOffice imports most junk as plain text, but not a zip it cannot open.
    source = tmp_path / "broken.doc"
    source.write_bytes(b"PK\x03\x04" + os.urandom(2048))
    with pytest.raises(ParseError, match=r"LibreOffice could not convert 'broken\.doc'"):
        convert_with_libreoffice(source, "docx", tmp_path, 30)


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if text.encode() in cmdline:
            found.append(int(entry.name))
    return found


def test_timeout_kills_soffice_and_every_process_under_it(tmp_path: Path) -> None:
    source = tmp_path / "slow.docx"
    document = docx.Document()
    document.add_paragraph("never converted")
    document.save(str(source))
    # A fresh profile: soffice spends well over half a second creating it.
    pool = tmp_path / "fresh-profiles"
    seen: set[int] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.update(_processes_mentioning(str(pool)))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.monotonic()
    try:
        with pytest.raises(ParseError, match=r"LibreOffice took longer than 0\.5 s converting"):
            convert_with_libreoffice(source, "pdf", tmp_path / "work", 0.5, profiles_dir=pool)
    finally:
        done.set()
        watcher.join()
    assert time.monotonic() - started < 5
    assert len(seen) >= 2  # the soffice script and the office process it started
    assert _processes_mentioning(str(pool)) == []
    # The half-initialised profile was dropped, so the next run starts clean.
    assert not (pool / "profile-0").exists()


def test_concurrent_conversions_get_distinct_profiles(tmp_path: Path) -> None:
    with claimed_profile(tmp_path) as first, claimed_profile(tmp_path) as second:
        assert first != second
    with claimed_profile(tmp_path) as again:
        assert again == first  # released slots are reused, keeping their warm profile


def test_missing_soffice_is_an_unavailable_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    source = tmp_path / "memo.doc"
    source.write_bytes(b"\xd0\xcf\x11\xe0")
    assert not libreoffice_available()
    with pytest.raises(EngineUnavailableError, match="needs LibreOffice"):
        parse_to_document(DocParser(), source, ParseOptions(work_dir=tmp_path))


def test_bad_timeout_option_is_refused(tmp_path: Path) -> None:
    options = ParseOptions(engine_options={"convert_timeout_s": "soon"}, work_dir=tmp_path)
    with pytest.raises(InvalidRequestError, match="convert_timeout_s"):
        parse_to_document(DocParser(), tmp_path / "memo.doc", options)
