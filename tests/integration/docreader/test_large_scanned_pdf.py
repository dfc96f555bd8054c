"""A 500-page scanned PDF comes back whole through a 4 MiB-message docreader, one frame per
page image, while the parse child stays under a memory cap far below the pages' total."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from tests.support.docreader import docreader_server
from workers.docreader_client import DocReaderClient, DocumentImage, ReadConfig

PAGES = 500
MESSAGE_LIMIT = 4 << 20
MEMORY_CAP_MB = 1024
# Each page is kept as an RGB render at 150 dpi: 1240 x 1754 x 3 bytes, about 6.5 MB.
RENDERED_PAGE_BYTES = 1240 * 1754 * 3


def _scanned_pdf(path: Path) -> None:
    """Every page is one shared scan plus a page-specific mark, so renders differ."""
    scan = Image.new("L", (620, 877), 255)
    draw = ImageDraw.Draw(scan)
    for line in range(20):
        draw.rectangle((40, 40 + line * 40, 580, 52 + line * 40), fill=40)
    picture = ImageReader(scan)
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for number in range(PAGES):
        pdf.drawImage(picture, 0, 0, *A4)
        pdf.rect(20 + number % 500, 20, 10, 10, fill=1)
        pdf.showPage()
    pdf.save()


@pytest.fixture(scope="module")
def client() -> Iterator[DocReaderClient]:
    with (
        docreader_server(
            max_message_bytes=MESSAGE_LIMIT, memory_cap_mb=MEMORY_CAP_MB, parse_timeout_s=600
        ) as target,
        DocReaderClient(target, timeout_s=600, max_message_bytes=MESSAGE_LIMIT) as reader,
    ):
        yield reader


def test_every_page_of_a_500_page_scan_comes_back(client: DocReaderClient, tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    _scanned_pdf(path)
    received: list[DocumentImage] = []

    outcome = client.read_file(path, config=ReadConfig(enable_ocr=False), on_image=received.append)

    assert outcome.metadata["page_count"] == str(PAGES)
    assert outcome.metadata["scanned_page_count"] == str(PAGES)
    assert [image.page for image in received] == list(range(1, PAGES + 1))
    assert all(image.mime_type == "image/png" for image in received)
    sizes = {(image.width, image.height) for image in received}
    assert len(sizes) == 1 and min(sizes) >= (1240, 1754)  # A4 at 150 dpi, pdfium rounds up
    # Each page is linked from the Markdown, in page order.
    links = [line for line in outcome.markdown.splitlines() if line.startswith("![page ")]
    assert links == [f"![page {image.page}]({image.ref})" for image in received]
    # The frames together are far over one gRPC message, and the renders together far over
    # the child's memory cap: only a page-by-page stream gets them all through.
    assert sum(len(image.data) for image in received) > 4 * MESSAGE_LIMIT
    assert PAGES * RENDERED_PAGE_BYTES > 3 * (MEMORY_CAP_MB << 20)
    with Image.open(io.BytesIO(received[-1].data)) as last:
        assert last.size == (received[-1].width, received[-1].height)
