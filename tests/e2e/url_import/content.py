"""What the URL-import tests serve and how they wait for and read back what was imported.

A content server, reached as "localhost" (the only allow-listed host:
SLUICE_SSRF_ALLOW_HOSTS=localhost), serves a PDF, a docx and web pages. A canary server on
127.0.0.1, not allow-listed, records every request it gets.
"""

from __future__ import annotations

from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack
from tests.support.corpus_media import figure_png
from tests.support.http_server import RecordingServer, Reply

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


def reply(status: int, body: bytes, headers: dict[str, str] | None = None) -> Reply:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        if "Content-Length" not in (headers or {}) and "Connection" not in (headers or {}):
            handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return handle


def article_html() -> bytes:
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


def finished(client: SluiceClient, knowledge: v1.Knowledge) -> v1.Knowledge:
    return client.wait_until_done(knowledge.id, WAIT_S)


def completed(client: SluiceClient, knowledge: v1.Knowledge) -> v1.Knowledge:
    done = finished(client, knowledge)
    assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
    return done


def docreader_span(client: SluiceClient, knowledge_id: str) -> v1.Span:
    return next(s for s in client.get_spans(knowledge_id).spans if s.name == "docreader")


def found_in(client: SluiceClient, kb: v1.KnowledgeBase, question: str, sentence: str) -> str:
    hits = client.search(question, [kb.id], top_k=5)
    hit = next((h for h in hits if sentence in h.content), None)
    assert hit is not None, f"{sentence!r} not found among {[h.content[:80] for h in hits]}"
    return hit.knowledge_id


def stored_files_of(stack: Stack, knowledge_id: str) -> list[Path]:
    return [p for p in stack.storage_dir.rglob("*") if p.is_file() and knowledge_id in p.parts]
