"""CreateFromURL end to end over real gRPC, against real HTTP servers this module starts.

A content server, reached as "localhost" (the only allow-listed host:
SLUICE_SSRF_ALLOW_HOSTS=localhost), serves a PDF, a docx and web pages; they are fetched by
the worker, processed like uploads and found by Search. A canary server on 127.0.0.1 — not
allow-listed — records every request: every SSRF trick is refused at the API with the rule
it broke, a redirect to the canary is refused by the worker, and the canary never sees a
request. Lite mode (one process); the worker-side check when the API and the workers
disagree needs separate processes, so it runs on the full stack.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from sluice_client import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    SluiceClient,
)
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.corpus_media import figure_png
from tests.support.corpus_office import build_docx
from tests.support.corpus_packaged import build_pdf
from tests.support.http_server import RecordingServer, Reply
from workers.extensions import VIDEO_NOT_SUPPORTED

WAIT_S = 240
DOWNLOAD_CAP = 300_000
ALLOWED_HOST = "localhost"
PDF_SENTENCES = (
    "The Kestrel ferry timetable lists nineteen crossings on summer Sundays.",
    "Harbour pilots of Kestrel Bay paint their oars in bright vermilion.",
)
DOCX_SENTENCES = (
    "The Marram dune survey counted forty sleeping badgers near the pier.",
    "Volunteers of the Marram survey carry brass compasses and oat biscuits.",
)
ARTICLE_SENTENCE = "The Tern Island keeper winds the clockwork lens every four hours."
ARTICLE_TITLE = "Tern Island Lighthouse Log"
CYRILLIC_SENTENCE = "Смотритель маяка на острове Чаек красит перила в бирюзовый цвет."
GULL_SENTENCE = "Чайки острова Бакланий гнездятся на старой сигнальной башне."
# "/статьи/бакланий" and "/снимки/башня.png" as they go on the wire.
GULL_PAGE_PATH = (
    "/%D1%81%D1%82%D0%B0%D1%82%D1%8C%D0%B8/%D0%B1%D0%B0%D0%BA%D0%BB%D0%B0%D0%BD%D0%B8%D0%B9"
)
TOWER_PNG_PATH = "/%D1%81%D0%BD%D0%B8%D0%BC%D0%BA%D0%B8/%D0%B1%D0%B0%D1%88%D0%BD%D1%8F.png"
LENS_PNG = figure_png()
HARBOURS_CSV = b"Port,Berths\n" + b"".join(b"Harbour %d,%d\n" % (n, n * 7) for n in range(30))
STAGES_ENV = {"SLUICE_SSRF_ALLOW_HOSTS": ALLOWED_HOST}


def _reply(status: int, body: bytes, headers: dict[str, str] | None = None) -> Reply:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        if "Content-Length" not in (headers or {}) and "Connection" not in (headers or {}):
            handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return handle


def _article() -> bytes:
    paragraphs = "".join(
        f"<p>Entry {n}: the keeper logged wind, tide and {n} passing trawlers.</p>"
        for n in range(8)
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{ARTICLE_TITLE}</title></head><body>"
        "<header><nav><a href='/'>Home</a> <a href='/shop'>Shop</a> "
        "Subscribe to our newsletter</nav></header>"
        "<main><article><h1>Keeping the Tern Island light</h1>"
        f"<p>{ARTICLE_SENTENCE}</p>{paragraphs}"
        '<p><img src="../img/lens.png" alt="The clockwork lens"></p></article></main>'
        "<footer>Copyright Coastal Gazette. Cookie settings.</footer></body></html>"
    ).encode()


@dataclass
class Servers:
    content: RecordingServer
    canary: RecordingServer
    pdf: bytes
    docx: bytes

    def url(self, path: str) -> str:
        return self.content.url(path, host=ALLOWED_HOST)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    files = tmp_path_factory.mktemp("url-files")
    pdf = build_pdf(files / "kestrel.pdf", PDF_SENTENCES).path.read_bytes()
    docx = build_docx(files / "marram.docx", DOCX_SENTENCES).path.read_bytes()
    assert len(pdf) < DOWNLOAD_CAP and len(docx) < DOWNLOAD_CAP
    canary = RecordingServer(default=_reply(200, b"canary reached", {"Content-Type": "text/html"}))
    cyrillic = (
        f"<html><head><title>Маяк</title></head><body><p>{CYRILLIC_SENTENCE}</p></body></html>"
    )
    routes: dict[str, Reply] = {
        "/docs/kestrel-timetable.pdf": _reply(200, pdf, {"Content-Type": "application/pdf"}),
        "/dedup/notes.pdf": _reply(200, pdf, {"Content-Type": "application/pdf"}),
        "/files/get?id=42": _reply(200, docx, {"Content-Type": "application/octet-stream"}),
        "/articles/tern-island": _reply(
            200, _article(), {"Content-Type": "text/html; charset=utf-8"}
        ),
        "/img/lens.png": _reply(200, LENS_PNG, {"Content-Type": "image/png"}),
        "/articles/chaek": _reply(
            200, cyrillic.encode("cp1251"), {"Content-Type": "text/html; charset=windows-1251"}
        ),
        GULL_PAGE_PATH: _reply(200, (
            "<html><head><title>Бакланий</title></head><body>"
            f"<article><p>{GULL_SENTENCE}</p>"
            '<p><img src="../снимки/башня.png" alt="Башня"></p></article></body></html>'
        ).encode(), {"Content-Type": "text/html; charset=utf-8"}),
        TOWER_PNG_PATH: _reply(200, LENS_PNG, {"Content-Type": "image/png"}),
        "/big/unannounced.pdf": _reply(
            200, b"%PDF-1.4\n" + b"0" * (2 * DOWNLOAD_CAP), {"Connection": "close"}
        ),
        "/big/announced.pdf": _reply(200, b"%PDF-1.4\n" + b"0" * (2 * DOWNLOAD_CAP)),
        "/tools/manual.pdf": _reply(
            200, b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00" + bytes(5000),
            {"Content-Type": "application/octet-stream"},
        ),
        "/media/briefing.pdf": _reply(200, bytes(5000), {"Content-Type": "video/mp4"}),
        "/download?id=9": _reply(
            200, b"MZ" + bytes(5000), {"Content-Disposition": 'attachment; filename="setup.exe"'}
        ),
        "/exports/harbours.txt": _reply(200, HARBOURS_CSV, {
            "Content-Type": "text/csv",
            "Content-Disposition": 'attachment; filename="harbours.csv"',
        }),
        "/go/secret": _reply(302, b"", {
            "Location": canary.url("/secret"), "Content-Length": "0",
        }),
    }
    content = RecordingServer(routes, default=_reply(404, b"not here"))
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


def _done(client: SluiceClient, knowledge: v1.Knowledge) -> v1.Knowledge:
    return client.wait_until_done(knowledge.id, WAIT_S)


def _completed(client: SluiceClient, knowledge: v1.Knowledge) -> v1.Knowledge:
    done = _done(client, knowledge)
    assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
    return done


def _docreader(client: SluiceClient, knowledge_id: str) -> v1.Span:
    return next(s for s in client.get_spans(knowledge_id).spans if s.name == "docreader")


def _found(client: SluiceClient, kb: v1.KnowledgeBase, question: str, sentence: str) -> str:
    hits = client.search(question, [kb.id], top_k=5)
    hit = next((h for h in hits if sentence in h.content), None)
    assert hit is not None, f"{sentence!r} not found among {[h.content[:80] for h in hits]}"
    return hit.knowledge_id


def _stored_files_of(stack: Stack, knowledge_id: str) -> list[Path]:
    return [p for p in stack.storage_dir.rglob("*") if p.is_file() and knowledge_id in p.parts]


def test_a_pdf_url_is_downloaded_processed_like_an_upload_and_found(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, stack: Stack
) -> None:
    url = servers.url("/docs/kestrel-timetable.pdf")
    created = client.create_from_url(kb.id, url)
    assert (created.type, created.source, created.parse_status) == (
        v1.KnowledgeType.URL, url, v1.ParseStatus.PENDING
    )
    assert (created.file_name, created.file_type) == ("kestrel-timetable.pdf", "pdf")

    done = _completed(client, created)
    assert done.file_size == len(servers.pdf)
    assert done.file_hash == hashlib.md5(servers.pdf).hexdigest()
    assert done.title == "kestrel-timetable.pdf"
    span = _docreader(client, done.id)
    assert span.input is not None and span.input.to_dict()["url"] == url
    assert span.output is not None
    fetch = span.output.to_dict()
    assert (fetch["url"], fetch["final_url"], fetch["http_status"]) == (url, url, 200)
    assert (fetch["bytes_fetched"], fetch["content_type"]) == (len(servers.pdf), "application/pdf")
    assert _found(client, kb, "How many ferry crossings on Sundays?", PDF_SENTENCES[0]) == done.id
    (stored,) = _stored_files_of(stack, done.id)
    assert stored.read_bytes() == servers.pdf

    # A reparse fetches the URL again and its download replaces the previous one.
    fetched = servers.content.paths.count("/docs/kestrel-timetable.pdf")
    reparsed = _completed(client, client.reparse(done.id))
    assert reparsed.attempt == 2
    assert servers.content.paths.count("/docs/kestrel-timetable.pdf") == fetched + 1
    (restored,) = _stored_files_of(stack, done.id)
    assert restored != stored and restored.read_bytes() == servers.pdf
    # The download is catalogued like an upload: a grant streams it back.
    grant = client.create_access_grant(knowledge_id=done.id)
    frames = list(client.read_resource(grant.token))
    assert b"".join(frame.data or b"" for frame in frames[1:]) == servers.pdf


def test_a_named_download_from_a_url_without_extension_is_a_docx(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, stack: Stack
) -> None:
    created = client.create_from_url(
        kb.id, servers.url("/files/get?id=42"), file_name="Marram Survey.docx"
    )
    assert (created.file_name, created.file_type) == ("Marram Survey.docx", "docx")
    done = _completed(client, created)
    assert done.file_hash == hashlib.md5(servers.docx).hexdigest()
    assert _found(client, kb, "What did the dune survey count?", DOCX_SENTENCES[0]) == done.id
    assert len(_stored_files_of(stack, done.id)) == 1
    client.delete_knowledge(done.id)
    assert _stored_files_of(stack, done.id) == [], "the download goes with its knowledge"


def test_a_download_named_csv_by_its_server_gets_the_table_summary(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    created = client.create_from_url(kb.id, servers.url("/exports/harbours.txt"))
    assert created.file_type == "txt"
    done = _completed(client, created)
    assert (done.file_name, done.file_type) == ("harbours.csv", "csv")
    deadline = time.monotonic() + WAIT_S
    while True:
        chunk_types = {chunk.chunk_type for chunk in client.list_chunks(done.id)}
        if v1.ChunkType.TABLE_SUMMARY in chunk_types:
            break
        assert time.monotonic() < deadline, f"no table summary among {chunk_types}"
        time.sleep(0.2)
    assert v1.ChunkType.TABLE_COLUMN in chunk_types


def test_a_web_page_becomes_its_main_content_titled_by_its_title(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    url = servers.url("/articles/tern-island")
    created = client.create_from_url(kb.id, url)
    assert (created.file_type, created.file_name, created.title) == ("url", "", url)
    done = _completed(client, created)
    assert done.title == ARTICLE_TITLE
    text = "\n".join(chunk.content for chunk in client.list_chunks(done.id))
    assert ARTICLE_SENTENCE in text
    assert "Subscribe to our newsletter" not in text and "Cookie settings" not in text
    # The page's relative image link was fetched against the page's URL and stored.
    assert "/img/lens.png" in servers.content.paths
    assert "](../img/lens.png)" not in text and "![The clockwork lens](" in text
    fetch = _docreader(client, done.id).output
    assert fetch is not None and fetch.to_dict()["content_type"] == "text/html"
    assert _found(client, kb, "How often is the clockwork lens wound?", ARTICLE_SENTENCE) == (
        done.id
    )


def test_a_given_title_is_kept_and_a_charset_from_the_header_is_honoured(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    created = client.create_from_url(kb.id, servers.url("/articles/chaek"), title="Gull Island")
    done = _completed(client, created)
    assert done.title == "Gull Island"
    text = "\n".join(chunk.content for chunk in client.list_chunks(done.id))
    assert CYRILLIC_SENTENCE in text


def test_a_page_at_a_non_ascii_url_with_non_ascii_image_links_is_imported(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    """Cyrillic in the URL and in a page-relative <img src> go out percent-encoded."""
    url = servers.url("/статьи/бакланий")
    created = client.create_from_url(kb.id, url)
    assert created.source == servers.url(GULL_PAGE_PATH)
    done = _completed(client, created)
    assert done.title == "Бакланий"
    assert GULL_SENTENCE in "\n".join(chunk.content for chunk in client.list_chunks(done.id))
    assert TOWER_PNG_PATH in servers.content.paths, "the page's image was fetched"
    fetch = _docreader(client, done.id).output
    assert fetch is not None and fetch.to_dict()["remote_images_fetched"] == 1


@pytest.mark.parametrize("path", ["/big/unannounced.pdf", "/big/announced.pdf"])
def test_an_oversize_download_fails_with_a_size_error_and_stores_nothing(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, stack: Stack, path: str
) -> None:
    done = _done(client, client.create_from_url(kb.id, servers.url(path)))
    assert done.parse_status == v1.ParseStatus.FAILED
    assert f"over the {DOWNLOAD_CAP}-byte cap" in done.error_message
    span = _docreader(client, done.id)
    assert span.status == v1.SpanStatus.FAILED and span.error_code == "URL_FETCH_FAILED"
    assert f"over the {DOWNLOAD_CAP}-byte cap" in span.error_message
    assert "will retry" not in span.error_message, "a size error is not retried"
    assert done.file_size == 0 and done.file_hash == ""
    assert _stored_files_of(stack, done.id) == []
    assert list((stack.storage_dir / ".staging").glob("*.part")) == []


@pytest.mark.parametrize(
    ("path", "file_type", "message"),
    [
        ("/tools/manual.pdf", "",
         "the download is a Windows executable, not a pdf file: file type 'exe' is not "
         "supported"),
        ("/media/briefing.pdf", "", f"the server sent video/mp4: {VIDEO_NOT_SUPPORTED}"),
        ("/download?id=9", "pdf", "file type 'exe' is not supported"),
    ],
)
def test_a_download_of_a_refused_type_fails_with_the_gates_message(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, stack: Stack,
    path: str, file_type: str, message: str,
) -> None:
    done = _done(client, client.create_from_url(kb.id, servers.url(path), file_type=file_type))
    assert done.parse_status == v1.ParseStatus.FAILED
    assert message in done.error_message
    span = _docreader(client, done.id)
    assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "UNSUPPORTED_FILE_TYPE")
    assert _stored_files_of(stack, done.id) == []


def test_the_same_url_again_is_already_exists_with_the_existing_knowledge(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    url = servers.url("/dedup/notes.pdf")
    existing = client.create_from_url(kb.id, url)
    respelled = url.replace("http://localhost", "HTTP://LocalHost") + "#page=2"
    with pytest.raises(AlreadyExists) as refused:
        client.create_from_url(kb.id, respelled, title="again")
    assert refused.value.existing_knowledge_id == existing.id
    assert existing.id in refused.value.message
    _completed(client, existing)
    with pytest.raises(AlreadyExists):
        client.create_from_url(kb.id, url)
    # A failed import does not count: the same URL may be imported again.
    missing = servers.url("/dedup/missing.pdf")
    failed = _done(client, client.create_from_url(kb.id, missing))
    assert failed.parse_status == v1.ParseStatus.FAILED and "HTTP 404" in failed.error_message
    again = client.create_from_url(kb.id, missing)
    assert again.id != failed.id
    _done(client, again)
    # Another knowledge base may import it too.
    other = client.create_knowledge_base(f"urls-other-{uuid.uuid4().hex[:8]}")
    assert client.create_from_url(other.id, url).id != existing.id


SSRF_CASES = [
    ("http://127.0.0.1:{canary}/secret", "127.0.0.1 is a loopback address"),
    ("http://2130706433:{canary}/decimal", "2130706433 is a loopback address"),
    ("http://0177.0.0.1:{canary}/octal", "is a loopback address"),
    ("http://0x7f.0x0.0x0.0x1:{canary}/hex", "is a loopback address"),
    ("http://0x7f000001:{canary}/hex-whole", "is a loopback address"),
    ("http://127.1:{canary}/short", "is a loopback address"),
    ("http://0.0.0.0:{canary}/unspecified", "unspecified"),
    ("http://[::]:{canary}/", "the unspecified address"),
    ("http://[::1]:{canary}/", "a loopback address"),
    ("http://[::ffff:127.0.0.1]:{canary}/mapped", "IPv4-mapped address of 127.0.0.1"),
    ("http://[::ffff:7f00:1]:{canary}/mapped-hex", "IPv4-mapped address of 127.0.0.1"),
    ("http://[::127.0.0.1]:{canary}/compatible", "IPv4-compatible address"),
    ("http://10.0.0.7/", "a private address"),
    ("http://172.16.5.4/", "a private address"),
    ("http://192.168.1.1/", "a private address"),
    ("http://[fd12:3456::1]/", "unique local (private) address"),
    ("http://169.254.169.254/latest/meta-data/", "a link-local address"),
    ("http://[fe80::1]/", "a link-local address"),
    ("http://100.64.0.1/", "a carrier-grade NAT address"),
    ("http://224.0.0.1/", "a multicast address"),
    ("http://[ff02::1]/", "a multicast address"),
    ("http://240.0.0.1/", "a reserved address"),
    ("http://192.0.2.10/", "a documentation address"),
    ("http://localhost@127.0.0.1:{canary}/userinfo", "credentials"),
    ("http://localhost:{content}\\@127.0.0.1:{canary}/", "credentials"),
    ("http://127.0.0.1:{canary}/#@localhost:{content}/", "127.0.0.1 is a loopback address"),
    ("http://127.0.0.1:{canary}#@localhost:{content}/", "127.0.0.1 is a loopback address"),
    ("http://localhost:22/", "port 22 is blocked"),
    ("http://localhost:6379/", "port 6379 is blocked"),
    ("ftp://localhost:{content}/docs/kestrel-timetable.pdf", "scheme 'ftp' is not allowed"),
    ("file:///etc/passwd", "scheme 'file' is not allowed"),
    ("gopher://localhost:{content}/", "scheme 'gopher' is not allowed"),
    ("http://local host/", "whitespace"),
]


@pytest.mark.parametrize(("template", "reason"), SSRF_CASES)
def test_every_ssrf_trick_is_refused_at_the_api_and_never_reaches_the_canary(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, template: str, reason: str
) -> None:
    url = template.format(canary=servers.canary.port, content=servers.content.port)
    before = len(list(client.list_knowledge(kb.id)))
    with pytest.raises(InvalidArgument) as refused:
        client.create_from_url(kb.id, url)
    error = refused.value
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert reason in error.message
    ((field, description),) = error.field_violations
    assert field == "url" and reason in description
    info = next(d for d in error.details if isinstance(d, error_details_pb2.ErrorInfo))
    assert info.reason == "URL_REFUSED" and reason in info.metadata["rule"]
    assert len(list(client.list_knowledge(kb.id))) == before, "nothing was created"
    assert servers.canary.requests == []


def test_a_redirect_to_the_canary_is_refused_before_it_is_followed(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    done = _done(client, client.create_from_url(kb.id, servers.url("/go/secret")))
    assert done.parse_status == v1.ParseStatus.FAILED
    assert "URL refused: 127.0.0.1 is a loopback address" in done.error_message
    span = _docreader(client, done.id)
    assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "URL_REFUSED")
    assert "will retry" not in span.error_message
    assert ("/go/secret", f"{ALLOWED_HOST}:{servers.content.port}") in servers.content.requests
    assert servers.canary.requests == []


@pytest.mark.parametrize(
    ("url_path", "options", "error", "message"),
    [
        ("/media/clip.mp4", {}, InvalidArgument, VIDEO_NOT_SUPPORTED),
        ("/page", {"file_type": "exe"}, InvalidArgument, "file type 'exe' is not supported"),
        ("/page", {"file_name": "setup.exe"}, InvalidArgument, "file type 'exe'"),
        ("/audio/briefing.mp3", {}, FailedPrecondition, "audio files need an ASR model"),
        ("/img/chart.png", {"enable_multimodel": True}, FailedPrecondition, "needs a VLM model"),
        ("", {}, InvalidArgument, "url: is required"),
    ],
)
def test_the_gate_and_the_upload_prechecks_apply_before_anything_is_created(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers,
    url_path: str, options: dict[str, object], error: type[Exception], message: str,
) -> None:
    url = servers.url(url_path) if url_path else ""
    requests = len(servers.content.requests)
    with pytest.raises(error, match=message):
        client.create_from_url(kb.id, url, **options)  # type: ignore[arg-type]
    assert len(servers.content.requests) == requests, "the API itself never fetches"


def test_a_caller_without_the_knowledge_base_learns_nothing_of_the_url(
    client: SluiceClient,
) -> None:
    with pytest.raises(NotFound) as refused:
        client.create_from_url("no-such-kb", "http://10.0.0.7/")
    assert "10.0.0.7" not in refused.value.message


# --- the worker's own check: API and workers disagree on the allow list ---------------------


@pytest.fixture(scope="module")
def split_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Full mode whose API allow-lists the content server but whose workers do not: a URL
    allowed when it was created is no longer allowed when it is fetched."""
    with full_stack(
        tmp_path_factory.mktemp("url-import-full"),
        workers=1,
        extra_env=STAGES_ENV,
        worker_env={"SLUICE_SSRF_ALLOW_HOSTS": ""},
    ) as running:
        yield running


def test_a_url_the_workers_policy_refuses_fails_the_document_with_the_reason(
    split_stack: Stack, servers: Servers
) -> None:
    with SluiceClient(split_stack.target) as client:
        kb = client.create_knowledge_base(f"urls-split-{uuid.uuid4().hex[:8]}")
        requests = len(servers.content.requests)
        created = client.create_from_url(kb.id, servers.url("/docs/kestrel-timetable.pdf"))
        assert created.parse_status == v1.ParseStatus.PENDING, "the API allowed it"
        done = client.wait_until_done(created.id, WAIT_S)
        assert done.parse_status == v1.ParseStatus.FAILED
        assert "URL refused: localhost resolves to a loopback address" in done.error_message
        assert "127.0.0.1" not in done.error_message, "the resolved address is not told"
        span = _docreader(client, done.id)
        assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "URL_REFUSED")
        assert "URL refused: localhost resolves to" in span.error_message
    assert len(servers.content.requests) == requests, "the worker sent nothing"


def test_long_urls_titles_and_channels_fit_the_columns_on_postgresql(
    split_stack: Stack, servers: Servers
) -> None:
    """A long URL's placeholder title is cut to the column; a title, channel or URL over
    its limit is INVALID_ARGUMENT naming the field, not a database error."""
    with SluiceClient(split_stack.target) as client:
        kb = client.create_knowledge_base(f"urls-long-{uuid.uuid4().hex[:8]}")
        url = servers.url("/long-page?q=" + "q" * 3000)
        created = client.create_from_url(kb.id, url)
        assert created.parse_status == v1.ParseStatus.PENDING
        assert created.title == url[:1024]
        for options, field in [
            ({"url": servers.url("/x?" + "q" * 8200)}, "url"),
            ({"title": "t" * 1025}, "title"),
            ({"channel": "c" * 65}, "channel"),
        ]:
            request: dict[str, str] = {"url": servers.url("/other-page"), **options}
            with pytest.raises(InvalidArgument) as refused:
                client.create_from_url(kb.id, **request)  # type: ignore[arg-type]
            assert [name for name, _ in refused.value.field_violations] == [field]
        client.wait_until_done(created.id, WAIT_S)
