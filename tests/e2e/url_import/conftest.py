"""The servers and the lite stack the URL-import tests share, once per test module."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sluice_client import (
    SluiceClient,
)
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack, lite_stack
from tests.e2e.url_import.content import (
    CYRILLIC_SENTENCE,
    DOCX_SENTENCES,
    DOWNLOAD_CAP,
    GULL_PAGE_PATH,
    GULL_SENTENCE,
    HARBOURS_CSV,
    LENS_PNG,
    PDF_SENTENCES,
    STAGES_ENV,
    TOWER_PNG_PATH,
    Servers,
    article_html,
    reply,
)
from tests.support.corpus_office import build_docx
from tests.support.corpus_packaged import build_pdf
from tests.support.http_server import RecordingServer, Reply


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    files = tmp_path_factory.mktemp("url-files")
    pdf = build_pdf(files / "kestrel.pdf", PDF_SENTENCES).path.read_bytes()
    docx = build_docx(files / "marram.docx", DOCX_SENTENCES).path.read_bytes()
    assert len(pdf) < DOWNLOAD_CAP and len(docx) < DOWNLOAD_CAP
    canary = RecordingServer(default=reply(200, b"canary reached", {"Content-Type": "text/html"}))
    cyrillic = (
        f"<html><head><title>Маяк</title></head><body><p>{CYRILLIC_SENTENCE}</p></body></html>"
    )
    routes: dict[str, Reply] = {
        "/docs/kestrel-timetable.pdf": reply(200, pdf, {"Content-Type": "application/pdf"}),
        "/dedup/notes.pdf": reply(200, pdf, {"Content-Type": "application/pdf"}),
        "/void/report.pdf": reply(200, b"", {"Content-Type": "application/pdf"}),
        # Announces the whole PDF, sends all but its last 5 bytes, closes the connection.
        "/cut/kestrel.pdf": reply(
            200,
            pdf[:-5],
            {
                "Content-Type": "application/pdf",
                "Content-Length": str(len(pdf)),
            },
        ),
        "/files/get?id=42": reply(200, docx, {"Content-Type": "application/octet-stream"}),
        "/articles/tern-island": reply(
            200, article_html(), {"Content-Type": "text/html; charset=utf-8"}
        ),
        "/img/lens.png": reply(200, LENS_PNG, {"Content-Type": "image/png"}),
        "/articles/chaek": reply(
            200, cyrillic.encode("cp1251"), {"Content-Type": "text/html; charset=windows-1251"}
        ),
        GULL_PAGE_PATH: reply(
            200,
            (
                "<html><head><title>Бакланий</title></head><body>"
                f"<article><p>{GULL_SENTENCE}</p>"
                '<p><img src="../снимки/башня.png" alt="Башня"></p></article></body></html>'
            ).encode(),
            {"Content-Type": "text/html; charset=utf-8"},
        ),
        TOWER_PNG_PATH: reply(200, LENS_PNG, {"Content-Type": "image/png"}),
        "/big/unannounced.pdf": reply(
            200, b"%PDF-1.4\n" + b"0" * (2 * DOWNLOAD_CAP), {"Connection": "close"}
        ),
        "/big/announced.pdf": reply(200, b"%PDF-1.4\n" + b"0" * (2 * DOWNLOAD_CAP)),
        "/tools/manual.pdf": reply(
            200,
            b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00" + bytes(5000),
            {"Content-Type": "application/octet-stream"},
        ),
        "/media/briefing.pdf": reply(200, bytes(5000), {"Content-Type": "video/mp4"}),
        "/download?id=9": reply(
            200, b"MZ" + bytes(5000), {"Content-Disposition": 'attachment; filename="setup.exe"'}
        ),
        "/exports/harbours.txt": reply(
            200,
            HARBOURS_CSV,
            {
                "Content-Type": "text/csv",
                "Content-Disposition": 'attachment; filename="harbours.csv"',
            },
        ),
        "/go/secret": reply(
            302,
            b"",
            {
                "Location": canary.url("/secret"),
                "Content-Length": "0",
            },
        ),
    }
    content = RecordingServer(routes, default=reply(404, b"not here"))
    yield Servers(content, canary, pdf, docx)
    content.close()
    canary.close()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {**STAGES_ENV, "SLUICE_URL_DOWNLOAD_MAX_BYTES": str(DOWNLOAD_CAP)}
    with lite_stack(tmp_path_factory.mktemp("url-import-lite"), env) as running:
        yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


@pytest.fixture(scope="module")
def kb(client: SluiceClient) -> v1.KnowledgeBase:
    return client.create_knowledge_base(f"urls-{uuid.uuid4().hex[:8]}")
