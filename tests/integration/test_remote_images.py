"""Document images end to end: the docreader's frames, inline data and remote images all end
up in real storage with the Markdown linking their catalog references — a remote image the
SSRF policy refuses never reaches its server, proved by a canary server that records every
request, and an image the catalog fails to record leaves no file behind."""

from __future__ import annotations

import base64
import hashlib
import io
import random
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from PIL import Image
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from core.ssrf.url_policy import UrlPolicy
from storage.db.repositories.resources import KNOWLEDGE_IMAGE
from tests.support.http_server import RecordingServer, Reply
from workers.context import WorkerContext
from workers.docreader_client import DocumentImage
from workers.net.safe_fetch import fetch
from workers.pipeline.reading.images import DocumentImages, StoredImage, StoredImages


def _store_images(
    ctx: WorkerContext, knowledge: Any, markdown: str, images: Iterable[DocumentImage]
) -> StoredImages:
    """The images stage's use of DocumentImages: frames as they arrive, then the Markdown."""
    intake = DocumentImages(ctx, knowledge)
    for image in images:
        intake.add(image)
    return intake.finish(markdown)


def _server(host: str, routes: dict[str, Reply] | None = None) -> RecordingServer:
    """A real HTTP server that records every request it receives."""
    return RecordingServer(routes, default=_reply(200, b"canary reached", "text/plain"), host=host)


def _reply(status: int, body: bytes, content_type: str) -> Reply:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return handle


def _redirect(location: str) -> Reply:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return handle


def _png(width: int, height: int, seed: int) -> bytes:
    """Noise, so the file is as big as a real picture of that size."""
    rng = random.Random(seed)
    image = Image.new("RGB", (width, height))
    image.putdata([(rng.randrange(256), rng.randrange(256), 99) for _ in range(width * height)])
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture
def ctx_env() -> dict[str, str]:
    return {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1", "SLUICE_FETCH_TIMEOUT_S": "5"}


@pytest.fixture
def knowledge(ctx: WorkerContext) -> Any:
    tenant = ctx.tenants.create_tenant("images").id
    kb = ctx.knowledge_bases.create(
        tenant,
        "kb",
        description="",
        type="document",
        config={},
        embedding_model_key="local/all-MiniLM-L6-v2/384",
        storage_backend_id="",
    )
    return ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="file",
        title="t",
        file_name="t.pdf",
        file_type="pdf",
        parse_status="processing",
        enable_status="disabled",
        attempt=1,
    )


@pytest.fixture
def canaries() -> Iterator[tuple[RecordingServer, RecordingServer | None]]:
    """One canary on 127.0.0.1 (reached as "localhost"), one on 127.0.0.2 where possible."""
    canary = _server("127.0.0.1")
    try:
        other: RecordingServer | None = _server("127.0.0.2")
    except OSError:
        other = None  # no 127/8 beyond 127.0.0.1 on this system
    yield canary, other
    canary.close()
    if other is not None:
        other.close()


def test_frames_inline_data_and_remote_images_are_stored_and_refused_ones_never_sent(
    ctx: WorkerContext,
    knowledge: Any,
    canaries: tuple[RecordingServer, RecordingServer | None],
) -> None:
    canary, other_canary = canaries
    figure, original_icon, measured_icon = _png(120, 90, 1), _png(16, 16, 2), _png(20, 20, 3)
    inline, bare, photo, remote_icon = (
        _png(100, 70, 4),
        _png(90, 90, 5),
        _png(80, 80, 6),
        _png(12, 12, 7),
    )
    other_target = (
        f"http://127.0.0.2:{other_canary.port}/secret" if other_canary else "http://10.0.0.1/"
    )
    origin = _server(
        "127.0.0.1",
        {
            "/photo.png": _reply(200, photo, "image/png"),
            "/icon.png": _reply(200, remote_icon, "image/png"),
            "/page.html": _reply(200, b"<html>not an image</html>" * 40, "text/html"),
            "/to-localhost": _redirect(f"http://localhost:{canary.port}/secret"),
            "/to-other": _redirect(other_target),
        },
    )
    base = f"http://127.0.0.1:{origin.port}"
    inline_uri = "data:image/png;base64," + base64.b64encode(inline).decode()
    bare_uri = "data:image/png;base64," + base64.b64encode(bare).decode()
    refused = [
        f"http://localhost:{canary.port}/secret",
        f"{base}/to-localhost",
        f"{base}/to-other",
        "http://169.254.169.254/latest/meta-data/",
    ]
    markdown = "\n\n".join(
        [
            "# Report",
            "![figure](image-1.png) and again ![same bytes](image-2.png)",
            "![tiny](image-3.png)![orig](image-4.png)[![measured](image-5.png)](https://x.example)",
            f'![inline]({inline_uri}) <img alt="html" src="{inline_uri}">',
            f"Bare {bare_uri} data.",
            f"![remote]({base}/photo.png) ![remote again]({base}/photo.png)",
            f"![remote icon]({base}/icon.png) ![page]({base}/page.html)",
            *(f"![refused {n}]({url})" for n, url in enumerate(refused)),
            "```\n![code](image-1.png)\n```",
        ]
    )
    stored_counts: list[int] = []

    def frames() -> Iterator[DocumentImage]:
        for ref, data, size, is_original in [
            ("image-1.png", figure, (120, 90), False),
            ("image-2.png", figure, (120, 90), False),
            ("image-3.png", original_icon, (16, 16), False),
            ("image-4.png", original_icon, (16, 16), True),
            ("image-5.png", measured_icon, (0, 0), False),  # no size from the docreader
        ]:
            stored_counts.append(len(ctx.resources.paths_owned_by(KNOWLEDGE_IMAGE, [knowledge.id])))
            yield DocumentImage(ref, data, "image/png", *size, is_original, page=2)

    try:
        result = _store_images(ctx, knowledge, markdown, frames())
    finally:
        origin.close()

    # Frames were stored as they came, not after all of them had arrived.
    assert stored_counts == [0, 1, 1, 1, 2]
    by_bytes = {hashlib.sha256(ctx.files.read_bytes(s.path)).digest(): s for s in result.stored}
    stored = {
        name: by_bytes[hashlib.sha256(data).digest()]
        for name, data in [
            ("figure", figure),
            ("original", original_icon),
            ("inline", inline),
            ("bare", bare),
            ("photo", photo),
        ]
    }
    assert len(result.stored) == 5, "identical bytes stored once"
    assert sorted(ctx.resources.paths_owned_by(KNOWLEDGE_IMAGE, [knowledge.id])) == sorted(
        s.path for s in result.stored
    )
    assert stored["figure"] == StoredImage(
        stored["figure"].ref, stored["figure"].path, 120, 90, "image/png", 2
    )
    assert (stored["photo"].width, stored["photo"].height, stored["photo"].page) == (80, 80, 0)
    # The Markdown links each stored image by its catalog reference, never by a URL.
    for image in stored.values():
        assert ctx.catalog.get(image.ref).path == image.path
    ref = {name: image.ref for name, image in stored.items()}
    assert result.markdown == "\n\n".join(
        [
            "# Report",
            f"![figure]({ref['figure']}) and again ![same bytes]({ref['figure']})",
            f"tiny![orig]({ref['original']})[measured](https://x.example)",
            f'![inline]({ref["inline"]}) <img alt="html" src="{ref["inline"]}">',
            f"Bare ![image]({ref['bare']}) data.",
            f"![remote]({ref['photo']}) ![remote again]({ref['photo']})",
            f"remote icon ![page]({base}/page.html)",
            *(f"![refused {n}]({target})" for n, target in enumerate(refused)),
            "```\n![code](image-1.png)\n```",
        ]
    )
    assert (result.icons_dropped, result.invalid_dropped) == (3, 0)
    assert (result.remote_fetched, result.remote_refused, result.remote_failed) == (2, 4, 1)
    assert sorted(origin.paths) == sorted(
        ["/photo.png", "/icon.png", "/page.html", "/to-localhost", "/to-other"]
    )
    # The refused requests never reached the canaries...
    assert canary.paths == []
    if other_canary is not None:
        assert other_canary.paths == []
    # ...which do record whatever reaches them.
    open_policy = UrlPolicy(allow_hosts=frozenset({"localhost", "127.0.0.2"}))
    fetch(f"http://localhost:{canary.port}/ping", open_policy, max_bytes=100, timeout_s=5)
    assert canary.paths == ["/ping"]
    if other_canary is not None:
        fetch(f"http://127.0.0.2:{other_canary.port}/ping", open_policy, max_bytes=100, timeout_s=5)
        assert other_canary.paths == ["/ping"]


def test_a_document_whose_remote_images_all_fail_still_gets_its_markdown(
    ctx: WorkerContext, knowledge: Any
) -> None:
    markdown = (
        "![down](http://127.0.0.1:9/a.png) ![bad](data:image/png;base64,@@@) "
        "![nothing](relative/path.png)"
    )
    result = _store_images(ctx, knowledge, markdown, [])
    assert result.markdown == "![down](http://127.0.0.1:9/a.png) bad ![nothing](relative/path.png)"
    assert (result.remote_failed, result.invalid_dropped, result.stored) == (1, 1, [])


def test_an_image_the_catalog_cannot_record_leaves_no_file_behind(
    ctx: WorkerContext, knowledge: Any
) -> None:
    figure = _png(120, 90, 8)
    before = {p for p in ctx.settings.storage.storage_dir.rglob("*") if p.is_file()}
    # A real failure of the catalog's database: its table is gone.
    with ctx.db.session() as session:
        session.execute(text("DROP TABLE storage_resources"))

    with pytest.raises(OperationalError, match="storage_resources"):
        _store_images(
            ctx,
            knowledge,
            "![figure](image-1.png)",
            [DocumentImage("image-1.png", figure, "image/png", 120, 90, False, page=1)],
        )

    # The file was saved before the registration failed, and removed again: no orphan.
    assert {p for p in ctx.settings.storage.storage_dir.rglob("*") if p.is_file()} == before


def test_a_pages_non_ascii_image_link_is_fetched_percent_encoded(
    ctx: WorkerContext, knowledge: Any
) -> None:
    """A page-relative <img src> with Cyrillic in it, joined against the page's URL, reaches
    the server as UTF-8 escapes instead of failing the whole document."""
    photo = _png(80, 80, 9)
    encoded = "/%D1%81%D1%82%D0%B0%D1%82%D1%8C%D0%B8/%D0%BC%D0%B0%D1%8F%D0%BA.png"
    origin = _server("127.0.0.1", {encoded: _reply(200, photo, "image/png")})
    intake = DocumentImages(ctx, knowledge, base_url=f"http://127.0.0.1:{origin.port}/статьи/")
    try:
        result = intake.finish('<img alt="маяк" src="маяк.png"> ![двойник](./маяк.png)')
    finally:
        origin.close()
    assert origin.paths == [encoded], "fetched once, percent-encoded"
    assert (result.remote_fetched, result.remote_failed, len(result.stored)) == (1, 0, 1)
    assert "маяк.png" not in result.markdown, "both links point at the stored copy"
