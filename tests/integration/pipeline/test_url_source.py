"""The worker's URL fetch on real parts: a real HTTP server, a migrated SQLite database and
local storage. A download streams into storage and becomes the knowledge's original; a
refused, oversize or stopped download leaves nothing behind; a web page arrives as HTML with
its charset; and a URL that passed the API's check but resolves elsewhere by the time the
worker fetches it (DNS rebinding between the two) is refused before any request is sent."""

from __future__ import annotations

import codecs
import hashlib
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from core.effective_config import resolve
from core.extensions import WEB_PAGE_TYPE
from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.url_import import checked_import_url
from storage.db.repositories.resources import KNOWLEDGE_FILES
from tests.support.http_server import RecordingServer, Reply
from tests.support.worker_context import worker_context
from workers.context import WorkerContext
from workers.net.service_ports import runtime_service_ports
from workers.pipeline.reading.url_source import (
    fetch_url_knowledge,
    placeholder_title,
    record_page_title,
)
from workers.pipeline.round.errors import (
    ModelMissing,
    Superseded,
    UnsupportedDownload,
    UrlFetchFailed,
    UrlRefused,
)
from workers.settings import Settings

CAP = 64 * 1024
PDF = b"%PDF-1.4\n" + bytes(range(256)) * 100  # about 25 KiB
RUSSIAN = "Смотритель маяка красит перила в бирюзовый цвет каждый апрель."
MP3 = b"ID3\x04\x00\x00\x00\x00\x00\x00" + bytes(2000)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(2000)
# A knowledge base configured with neither an ASR nor a VLM model.
NO_MODELS = resolve({}, None)


def _reply(body: bytes, headers: dict[str, str]) -> Reply:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    return handle


def _in_pieces(body: bytes, pieces: int) -> Reply:
    """The body in separate writes a little apart, so a reader gets it in several pieces."""
    size = -(-len(body) // pieces)

    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        for start in range(0, len(body), size):
            handler.wfile.write(body[start : start + size])
            handler.wfile.flush()
            time.sleep(0.05)

    return handle


def _not_found(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(404)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    page = f"<html><head><title>Маяк</title></head><body><p>{RUSSIAN}</p></body></html>"
    local = RecordingServer(
        {
            "/report.pdf": _reply(PDF, {"Content-Type": "application/pdf"}),
            "/slow.pdf": _in_pieces(PDF, 4),
            "/big.pdf": _reply(b"%PDF-1.4\n" + b"x" * (3 * CAP), {"Connection": "close"}),
            "/setup.pdf": _reply(b"MZ\x90\x00\x03\x00\x00\x00" + bytes(4000), {}),
            "/page": _reply(
                page.encode("cp1251"), {"Content-Type": "text/html; charset=windows-1251"}
            ),
            "/get?id=7": _reply(
                MP3, {"Content-Disposition": 'attachment; filename="briefing.mp3"'}
            ),
            "/chart.png": _reply(PNG, {"Content-Type": "image/png"}),
        },
        default=_not_found,
    )
    yield local
    local.close()


@pytest.fixture
def ctx_env() -> dict[str, str]:
    return {
        "SLUICE_SSRF_ALLOW_HOSTS": "localhost",
        "SLUICE_URL_DOWNLOAD_MAX_BYTES": str(CAP),
        "SLUICE_URL_IMPORT_TIMEOUT_S": "10",
    }


Make = Callable[..., Any]


@pytest.fixture
def make(ctx: WorkerContext) -> Make:
    tenant = ctx.tenants.create_tenant("urls").id
    kb = ctx.knowledge_bases.create(
        tenant,
        "kb",
        description="",
        type="document",
        config={},
        embedding_model_key="local/all-MiniLM-L6-v2/384",
        storage_backend_id="",
    )

    def knowledge(source: str, file_type: str, file_name: str = "", **fields: Any) -> Any:
        return ctx.knowledges.create(
            tenant_id=tenant,
            knowledge_base_id=kb.id,
            type="url",
            source=source,
            title=fields.pop("title", file_name or source),
            file_name=file_name,
            file_type=file_type,
            parse_status="processing",
            enable_status="disabled",
            attempt=1,
            **fields,
        )

    return knowledge


def _never() -> bool:
    return False


def _row(ctx: WorkerContext, knowledge_id: str) -> Any:
    row = ctx.knowledges.get(knowledge_id, None)
    assert row is not None
    return row


def _stored_files(ctx: WorkerContext) -> list[Path]:
    return [p for p in ctx.settings.storage.storage_dir.rglob("*") if p.is_file()]


def test_a_download_streams_into_storage_and_replaces_an_earlier_rounds_file(
    ctx: WorkerContext, make: Make, server: RecordingServer
) -> None:
    earlier = ctx.files.save_stream("t", "k", "old.pdf", [b"%PDF-1.4 earlier round"])
    row = make(
        server.url("/report.pdf", host="localhost"), "pdf", "report.pdf", file_path=earlier.path
    )
    fetched = fetch_url_knowledge(ctx, row, 1, config=NO_MODELS, should_stop=_never)
    assert fetched.page is None
    got = fetched.knowledge
    assert (got.file_name, got.file_type, got.file_size) == ("report.pdf", "pdf", len(PDF))
    assert got.file_hash == hashlib.md5(PDF).hexdigest()
    with ctx.catalog.open(got.file_path) as original:  # the row keeps the catalog's reference
        assert original.read() == PDF
    assert not ctx.files.exists(earlier.path), "the earlier round's download is gone"
    assert fetched.fetch.span_fields() == {
        "url": row.source,
        "final_url": row.source,
        "http_status": 200,
        "content_type": "application/pdf",
        "bytes_fetched": len(PDF),
    }


@pytest.mark.parametrize(
    ("path", "error", "message"),
    [
        ("/big.pdf", UrlFetchFailed, f"the body is over the {CAP}-byte cap"),
        (
            "/setup.pdf",
            UnsupportedDownload,
            "the download is a Windows executable, not a pdf file: file type 'exe' is not",
        ),
        ("/missing.pdf", UrlFetchFailed, "HTTP 404"),
    ],
)
def test_a_failed_download_says_why_and_leaves_nothing_stored(
    ctx: WorkerContext,
    make: Make,
    server: RecordingServer,
    path: str,
    error: type[Exception],
    message: str,
) -> None:
    row = make(server.url(path, host="localhost"), "pdf", "a.pdf")
    with pytest.raises(error, match=message) as failed:
        fetch_url_knowledge(ctx, row, 1, config=NO_MODELS, should_stop=_never)
    assert getattr(failed.value, "permanent", None) is True
    assert _stored_files(ctx) == []
    assert _row(ctx, row.id).file_path == ""


def test_a_round_told_to_stop_mid_download_stores_nothing(
    ctx: WorkerContext, make: Make, server: RecordingServer
) -> None:
    row = make(server.url("/slow.pdf", host="localhost"), "pdf", "report.pdf")
    asked: list[bool] = []

    def stop_after_the_first_piece() -> bool:
        asked.append(True)
        return len(asked) > 1

    with pytest.raises(Superseded):
        fetch_url_knowledge(ctx, row, 1, config=NO_MODELS, should_stop=stop_after_the_first_piece)
    assert _stored_files(ctx) == []
    # A round superseded while its file was being stored removes the file it stored.
    ctx.knowledges.next_attempt(row.id)
    with pytest.raises(Superseded):
        fetch_url_knowledge(ctx, row, 1, config=NO_MODELS, should_stop=_never)
    assert _stored_files(ctx) == []
    assert _row(ctx, row.id).file_path == ""


def test_a_download_that_cannot_be_recorded_leaves_no_file_and_no_record(
    ctx: WorkerContext, make: Make, server: RecordingServer
) -> None:
    row = make(server.url("/report.pdf", host="localhost"), "pdf", "report.pdf")
    # The database refuses to point the row at the new file (as it would if it failed then).
    with ctx.db.session() as session:
        session.execute(
            text(
                "CREATE TRIGGER refuse_originals BEFORE UPDATE OF file_path ON knowledges "
                "BEGIN SELECT RAISE(ABORT, 'knowledges refused'); END"
            )
        )

    with pytest.raises(IntegrityError, match="knowledges refused"):
        fetch_url_knowledge(ctx, row, 1, config=NO_MODELS, should_stop=_never)

    assert _stored_files(ctx) == []
    assert ctx.catalog.owned_by(KNOWLEDGE_FILES, [row.id], include_deleted=True) == []
    assert _row(ctx, row.id).file_path == ""


def test_a_web_page_arrives_as_utf8_html_and_titles_its_knowledge(
    ctx: WorkerContext, make: Make, server: RecordingServer
) -> None:
    source = server.url("/page", host="localhost")
    row = make(source, WEB_PAGE_TYPE)
    fetched = fetch_url_knowledge(ctx, row, 1, config=NO_MODELS, should_stop=_never)
    assert fetched.page is not None
    assert fetched.page.startswith(codecs.BOM_UTF8)
    assert RUSSIAN in fetched.page.decode("utf-8-sig")
    assert fetched.fetch.content_type == "text/html"
    record_page_title(ctx, row, 1, {"title": "  Маяк \n на острове "})
    assert _row(ctx, row.id).title == "Маяк на острове"
    titled = make(server.url("/page?v=2", host="localhost"), WEB_PAGE_TYPE, title="Mine")
    record_page_title(ctx, titled, 1, {"title": "Маяк"})
    assert _row(ctx, titled.id).title == "Mine", "a given title is kept"


def test_a_url_rebound_after_the_api_check_is_refused_by_the_worker(
    ctx: WorkerContext, make: Make, server: RecordingServer
) -> None:
    """The API checks the URL while its name answers a public address; by the time the
    worker fetches, the name answers loopback (where the server listens). The worker's own
    check refuses it, and nothing reaches the server."""
    answers = [["93.184.216.34"], ["127.0.0.1"]]
    asked: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        asked.append(host)
        return answers[min(len(asked), len(answers)) - 1]

    url = f"http://rebind.example:{server.port}/report.pdf"
    accepted = checked_import_url(url, ctx.settings, resolver=rebinding)
    assert accepted.addresses == ("93.184.216.34",)
    row = make(accepted.normalized, "pdf", "report.pdf")
    with pytest.raises(
        UrlRefused,
        match=r"^URL refused: rebind\.example resolves to a loopback "
        "address$",
    ) as refused:
        fetch_url_knowledge(ctx, row, 1, config=NO_MODELS, should_stop=_never, resolver=rebinding)
    assert refused.value.permanent and refused.value.code == "URL_REFUSED"
    assert server.requests == []
    assert _stored_files(ctx) == []
    # The API's own check refuses the rebound name the same way.
    with (
        pytest.raises(ApiError, match=r"refused by the SSRF policy: rebind\.example resolves"),
        translated(),
    ):
        checked_import_url(url, ctx.settings, resolver=rebinding)


def test_a_download_of_another_type_than_planned_passes_that_types_model_precheck(
    ctx: WorkerContext, make: Make, server: RecordingServer
) -> None:
    """Planned as a PDF, the link serves an MP3 (or, planned under multimodal, a PNG): with
    no ASR (VLM) model configured it fails at once with the creation pre-check's message,
    and nothing is stored."""
    cases = [
        ("/get?id=7", False, NO_MODELS, "ASR_MODEL_MISSING", "audio files need an ASR model"),
        ("/chart.png", True, NO_MODELS, "VLM_MODEL_MISSING", "needs a VLM model"),
    ]
    for path, multimodal, config, code, message in cases:
        row = make(
            server.url(path, host="localhost"), "pdf", "report.pdf", enable_multimodel=multimodal
        )
        with pytest.raises(ModelMissing, match=message) as refused:
            fetch_url_knowledge(ctx, row, 1, config=config, should_stop=_never)
        assert refused.value.permanent and refused.value.code == code
        assert _stored_files(ctx) == []
    # With the model configured (or without multimodal) the same downloads go through.
    with_asr = resolve({"asr": {"model": {"provider": "openai", "model": "whisper-1"}}}, None)
    audio = make(server.url("/get?id=7&v=2", host="localhost"), "pdf", "report.pdf")
    server.routes["/get?id=7&v=2"] = server.routes["/get?id=7"]
    got = fetch_url_knowledge(ctx, audio, 1, config=with_asr, should_stop=_never).knowledge
    assert (got.file_name, got.file_type) == ("briefing.mp3", "mp3")
    image = make(server.url("/chart.png", host="localhost"), "pdf", "chart.pdf")
    got = fetch_url_knowledge(ctx, image, 1, config=NO_MODELS, should_stop=_never).knowledge
    assert got.file_type == "png"


def test_a_long_urls_placeholder_title_is_cut_to_fit_and_still_replaced(
    ctx: WorkerContext, make: Make, server: RecordingServer
) -> None:
    source = server.url("/page?q=" + "x" * 3000, host="localhost")
    row = make(source, WEB_PAGE_TYPE, title=placeholder_title(source))
    assert len(row.title) == 1024
    record_page_title(ctx, row, 1, {"title": "Маяк"})
    assert _row(ctx, row.id).title == "Маяк"


def test_a_closed_context_no_longer_blocks_its_milvus_lite_port(tmp_path: Path) -> None:
    """The port pymilvus served the file on is freed with the context: a later server that
    binds it (another process's, or a test's) is not mistaken for one of ours."""
    settings = Settings.from_env(env={"SLUICE_DATA_DIR": str(tmp_path)})
    with worker_context(settings) as context:
        port = context.index.local_server_port
        assert port is not None and port in runtime_service_ports()
    assert port not in runtime_service_ports()
