"""The shared image-bytes helpers: sizes from headers (Pillow for the rarer formats), and
data URIs as the docreader's image collector decodes them."""

from __future__ import annotations

import base64
import io
import struct

import pytest
from PIL import Image

from core.image_bytes import InvalidImageData, decode_data_uri, image_size
from server.docreader.image_collector import ImageCollector
from tests.unit.docreader.images import data_uri, gif_bytes, png_bytes


def _jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"


def _bmp(width: int, height: int) -> bytes:
    return b"BM" + b"\x00" * 16 + struct.pack("<ii", width, -height) + b"\x00" * 28


def _webp_vp8x(width: int, height: int) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00"
    body += (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body


def _webp_lossless(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    body = b"VP8L" + struct.pack("<I", 5) + b"\x2f" + bits.to_bytes(4, "little")
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body


def _pillow_encoded(width: int, height: int, form: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height)).save(buffer, form)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "size"),
    [
        (png_bytes(31, 17), (31, 17)),
        (gif_bytes(300, 2), (300, 2)),
        (_jpeg(640, 480), (640, 480)),
        (_bmp(12, 34), (12, 34)),
        (_webp_vp8x(1000, 700), (1000, 700)),
        (_webp_lossless(55, 66), (55, 66)),
        (_pillow_encoded(70, 90, "JPEG"), (70, 90)),
        # No header reader of our own for TIFF: Pillow's header read gives the size.
        (_pillow_encoded(41, 23, "TIFF"), (41, 23)),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", (0, 0)),
        (b"\xff\xd8\xff", (0, 0)),
        (b"\x89PNG\r\n\x1a\n corrupt", (0, 0)),
    ],
)
def test_image_size(data: bytes, size: tuple[int, int]) -> None:
    assert image_size(data) == size


def test_a_data_uri_decodes_to_the_type_its_bytes_name() -> None:
    png = png_bytes(3, 4)
    image = decode_data_uri(data_uri(png, "image/jpeg"))
    assert image is not None and (image.mime_type, image.data) == ("image/png", png)
    assert decode_data_uri("https://h.example/a.png") is None
    assert decode_data_uri(f"base64,{base64.b64encode(png).decode()}") is None
    with pytest.raises(InvalidImageData, match="not an image"):
        decode_data_uri("data:text/plain;base64,QUJD")
    with pytest.raises(InvalidImageData, match="does not decode"):
        decode_data_uri("data:image/png;base64,QUJDR")


def test_the_collector_numbers_data_uri_images_and_skips_corrupt_ones() -> None:
    collector = ImageCollector()
    png, gif = png_bytes(5, 6), gif_bytes(7, 8)
    assert collector.add_data_uri(data_uri(png)) == "image-1.png"
    # A mislabelled image gets the extension and type of what it really is.
    assert collector.add_data_uri(data_uri(gif, "image/png")) == "image-2.gif"
    assert collector.add_data_uri(data_uri(png, "image/webp")) == "image-1.png"
    assert collector.add_data_uri("data:image/png;base64,@@@@") is None
    assert collector.add_data_uri("data:text/html,<b>x</b>") is None
    assert collector.add_data_uri("data:image/png;base64,") is None
    assert [(i.ref, i.mime_type, i.width, i.height) for i in collector.images] == [
        ("image-1.png", "image/png", 5, 6),
        ("image-2.gif", "image/gif", 7, 8),
    ]
