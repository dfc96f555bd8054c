"""Each parse runs in a child with a memory cap and a time limit: a file that needs too much
of either fails alone with a clear status, and the docreader goes on serving."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import docx
import psutil
import pytest
from PIL import Image, ImageDraw, ImageFont
from prometheus_client import REGISTRY
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from server.docreader.parsers.office.libreoffice import convert_with_libreoffice
from server.docreader.safety.limits import ParseLimits
from tests.support.docreader import docreader_server
from workers.docreader_client import DocReaderCallError, DocReaderCancelled, DocReaderClient

LIMIT = 16 << 20
REPO = Path(__file__).resolve().parents[3]


def _scanned_pdf(pages: int) -> bytes:
    """Pages that are only a picture of text: every page needs OCR, ~0.5 s each."""
    font = ImageFont.load_default(size=40)
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    for number in range(pages):
        picture = Image.new("L", (1240, 1754), 255)
        draw = ImageDraw.Draw(picture)
        for line in range(12):
            draw.text(
                (80, 120 + line * 110),
                f"Scanned page {number} line {line} of text",
                fill=0,
                font=font,
            )
        pdf.drawImage(ImageReader(picture), 0, 0, *A4)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


@pytest.fixture()
def make_client() -> Iterator[object]:
    with ExitStack() as started:

        def make(**kwargs: Any) -> DocReaderClient:
            target = started.enter_context(docreader_server(max_message_bytes=LIMIT, **kwargs))
            return started.enter_context(
                DocReaderClient(target, timeout_s=120, max_message_bytes=LIMIT)
            )

        yield make


def _parse_children() -> list[psutil.Process]:
    """Processes forked for parses: descendants of this process's forkserver."""
    found: list[psutil.Process] = []
    for child in psutil.Process().children(recursive=False):
        try:
            if "forkserver" in " ".join(child.cmdline()):
                found.extend(child.children(recursive=True))
        except psutil.NoSuchProcess:
            continue
    return [p for p in found if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def _kills(reason: str) -> float:
    """The docreader's sandbox kill counter (the server runs in this process)."""
    found = REGISTRY.get_sample_value("sluice_docreader_sandbox_kills_total", {"reason": reason})
    return found or 0.0


def _wait_no_parse_children(timeout_s: float = 5.0) -> list[psutil.Process]:
    deadline = time.monotonic() + timeout_s
    while (left := _parse_children()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_a_parse_over_the_time_limit_is_stopped_and_its_processes_killed(
    make_client: object,
) -> None:
    client = make_client(parse_timeout_s=1.0)  # type: ignore[operator]
    kills = _kills("timeout")
    started = time.monotonic()
    with pytest.raises(DocReaderCallError) as caught:
        client.read(_scanned_pdf(8), file_name="scan.pdf", file_type="pdf")
    assert caught.value.code_name == "INVALID_ARGUMENT"
    assert "took longer than 1 s" in caught.value.message
    assert time.monotonic() - started < 10
    assert _kills("timeout") == kills + 1
    assert _wait_no_parse_children() == []
    # The same server reads the next file.
    assert "still" in client.read(b"still here", file_name="a.txt", file_type="txt").markdown


def test_a_parse_over_the_memory_cap_fails_alone(make_client: object, tmp_path: Path) -> None:
    # Text limits opened wide, so only the memory cap can stop a huge text file.
    limits = ParseLimits(max_text_bytes=1 << 30, max_line_chars=1 << 30)
    client = make_client(memory_cap_mb=1024, limits=limits)  # type: ignore[operator]
    small = tmp_path / "small.txt"
    small.write_bytes(b"A modest line of text.\n" * 200_000)  # 4.6 MB
    assert client.read_file(small).markdown.startswith("A modest line")
    big = tmp_path / "big.txt"
    with big.open("wb") as out:
        line = b"x" * 1023 + b"\n"
        for _ in range(700):
            out.write(line * 1024)  # 700 MiB: the decoded text alone outgrows the cap
    server_rss = psutil.Process().memory_info().rss
    kills = _kills("memory")
    with pytest.raises(DocReaderCallError) as caught:
        client.read_file(big)
    assert caught.value.code_name == "INVALID_ARGUMENT"
    assert "memory cap" in caught.value.message
    assert _kills("memory") == kills + 1
    # The parse's memory was the child's, not the server's.
    assert psutil.Process().memory_info().rss - server_rss < 200 << 20
    assert client.read_file(small).markdown.startswith("A modest line")


def test_a_cancelled_read_kills_its_parse(make_client: object) -> None:
    client = make_client()  # type: ignore[operator]
    scanned = _scanned_pdf(10)
    started = time.monotonic()
    seen_child = threading.Event()

    def should_stop() -> bool:
        if _parse_children():
            seen_child.set()
        return seen_child.is_set() and time.monotonic() - started > 1.0

    with pytest.raises(DocReaderCancelled):
        client.read(scanned, file_name="scan.pdf", file_type="pdf", should_stop=should_stop)
    assert seen_child.is_set()
    assert _wait_no_parse_children() == []


def test_a_parse_killed_by_the_sandbox_takes_libreoffice_with_it(
    make_client: object, tmp_path: Path
) -> None:
    source = tmp_path / "letter.docx"
    document = docx.Document()
    document.add_paragraph("Converted by LibreOffice, if given the time.")
    document.save(str(source))
    doc = convert_with_libreoffice(source, "doc", tmp_path / "lo", 120)
    work = tmp_path / "work"
    client = make_client(parse_timeout_s=0.5, work_dir=str(work))  # type: ignore[operator]
    with pytest.raises(DocReaderCallError) as caught:
        client.read_file(doc)
    assert "took longer than" in caught.value.message
    assert _wait_no_parse_children() == []
    assert _wait_no_soffice_under(work) == []


def _wait_no_soffice_under(work: Path, timeout_s: float = 5.0) -> list[psutil.Process]:
    """Live LibreOffice processes converting a file from ``work`` (this server's reads)."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = []
        for process in psutil.process_iter(["name", "cmdline", "status"]):
            cmdline = " ".join(process.info["cmdline"] or [])
            if (
                process.info["name"] in ("soffice.bin", "oosplash", "soffice")
                and str(work) in cmdline
                and process.info["status"] != psutil.STATUS_ZOMBIE
            ):
                left.append(process)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


_MAIN_SCRIPT = """
import pathlib
if __name__ != "__main__":
    # Imported again somewhere else: a parse child preparing itself from our main script.
    pathlib.Path("{marker}").write_text(__name__)
else:
    from server.docreader.server import build_docreader_server
    from workers.docreader_client import DocReaderClient
    server, port = build_docreader_server(
        "127.0.0.1:0", max_workers=1, storage_base_dir=None, max_message_bytes=1 << 20
    )
    server.start()
    with DocReaderClient(f"127.0.0.1:{{port}}", timeout_s=60, max_message_bytes=1 << 20) as c:
        print(c.read(b"# Parsed", file_name="a.md", file_type="md").markdown)
    server.stop(None)
"""


def test_parse_children_do_not_import_the_servers_main_script(tmp_path: Path) -> None:
    """Under ``sluice-server`` the main script pulls in the whole API: a child that imported
    it again would pay for that on every parse."""
    marker = tmp_path / "imported-again"
    script = tmp_path / "main_script.py"
    script.write_text(_MAIN_SCRIPT.format(marker=marker))
    path = os.pathsep.join([str(REPO), str(REPO / "clients" / "python")])
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": path},
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "# Parsed"
    assert not marker.exists()
