"""Image dimensions from header bytes."""

from __future__ import annotations

import struct

import pytest

from server.docreader.parsers.image_size import image_size
from tests.unit.docreader.images import gif_bytes, png_bytes


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


@pytest.mark.parametrize(
    ("data", "size"),
    [
        (png_bytes(31, 17), (31, 17)),
        (gif_bytes(300, 2), (300, 2)),
        (_jpeg(640, 480), (640, 480)),
        (_bmp(12, 34), (12, 34)),
        (_webp_vp8x(1000, 700), (1000, 700)),
        (_webp_lossless(55, 66), (55, 66)),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", (0, 0)),
        (b"\xff\xd8\xff", (0, 0)),
    ],
)
def test_image_size(data: bytes, size: tuple[int, int]) -> None:
    assert image_size(data) == size
