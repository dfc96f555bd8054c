"""Image files: the original image linked from the Markdown, OCR text below it, hostile input
refused before decoding."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParseOptions, parse_to_document
from server.docreader.parsers.image import ImageParser
from server.docreader.safety.limits import ParseLimits


def text_image(text: str, *, mode: str = "RGB", size: tuple[int, int] = (700, 140)) -> Image.Image:
    background = (0, 0, 0, 0) if mode == "RGBA" else "white"
    image = Image.new(mode, size, background)
    ImageDraw.Draw(image).text((20, 40), text, fill="black", font=ImageFont.load_default(size=48))
    return image


def encoded(image: Image.Image, format: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=format, **options)
    return buffer.getvalue()


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def options(name: str, **changes: object) -> ParseOptions:
    file_type = name.rsplit(".", 1)[-1]
    return ParseOptions(file_name=name, file_type=file_type, **changes)  # type: ignore[arg-type]


def test_png_becomes_its_image_and_its_ocr_text(tmp_path: Path) -> None:
    data = encoded(text_image("Invoice 4711"), "PNG")
    path = write(tmp_path, "scan [1].png", data)

    document = parse_to_document(ImageParser(), path, options("scan [1].png"))

    link, text = document.markdown.split("\n\n")
    assert link == "![scan \\[1\\].png](image-1.png)"
    assert "Invoice 4711" in text
    [image] = document.images
    assert (image.ref, image.mime_type, image.width, image.height) == (
        "image-1.png",
        "image/png",
        700,
        140,
    )
    assert image.is_original and image.data == data
    assert document.metadata == {
        "width": "700",
        "height": "140",
        "format": "png",
        "ocr_chars": str(len(text)),
        "ocr_languages": "eng",
    }


def test_jpeg_without_ocr_is_only_the_image_link(tmp_path: Path) -> None:
    data = encoded(text_image("Quarterly results"), "JPEG", quality=90)
    path = write(tmp_path, "photo.jpeg", data)

    document = parse_to_document(ImageParser(), path, options("photo.jpeg", enable_ocr=False))

    assert document.markdown == "![photo.jpeg](image-1.jpg)"
    assert [(i.ref, i.mime_type, i.is_original, i.data) for i in document.images] == [
        ("image-1.jpg", "image/jpeg", True, data)
    ]
    assert document.metadata == {"width": "700", "height": "140", "format": "jpeg"}


def test_gif_ocr_reads_the_first_frame(tmp_path: Path) -> None:
    first = text_image("FIRST FRAME").convert("P")
    second = text_image("OTHER PICTURE").convert("P")
    data = encoded(first, "GIF", save_all=True, append_images=[second], duration=500)
    path = write(tmp_path, "anim.gif", data)

    document = parse_to_document(ImageParser(), path, options("anim.gif"))

    assert document.markdown.startswith("![anim.gif](image-1.gif)\n\n")
    assert "FIRST FRAME" in document.markdown
    assert "OTHER" not in document.markdown
    assert document.images[0].mime_type == "image/gif"
    assert document.metadata["format"] == "gif"


def test_text_on_a_transparent_background_is_read(tmp_path: Path) -> None:
    # Black glyphs on transparent black: plain grayscale conversion would show nothing.
    path = write(tmp_path, "logo.png", encoded(text_image("Transparent 2024", mode="RGBA"), "PNG"))

    document = parse_to_document(ImageParser(), path, options("logo.png"))

    assert "Transparent 2024" in document.markdown


def test_the_real_format_decides_the_ref_and_mime(tmp_path: Path) -> None:
    path = write(tmp_path, "mislabelled.jpg", encoded(Image.new("RGB", (40, 30), "red"), "PNG"))

    document = parse_to_document(ImageParser(), path, options("mislabelled.jpg", enable_ocr=False))

    assert document.markdown == "![mislabelled.jpg](image-1.png)"
    assert document.images[0].mime_type == "image/png"


def png_header_only(width: int, height: int) -> bytes:
    """A PNG claiming width times height pixels with almost no pixel data: a bomb's shape."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def test_a_decompression_bomb_is_refused_from_its_header(tmp_path: Path) -> None:
    path = write(tmp_path, "bomb.png", png_header_only(30_000, 30_000))

    with pytest.raises(ParseError, match="decompression bomb: 30000×30000 pixels"):  # noqa: RUF001
        parse_to_document(ImageParser(), path, options("bomb.png"))


def test_the_pixel_limit_comes_from_the_options(tmp_path: Path) -> None:
    path = write(tmp_path, "big.gif", encoded(Image.new("P", (100, 100)), "GIF"))
    limited = options("big.gif", limits=ParseLimits(max_image_pixels=9_999))

    with pytest.raises(ParseError, match="decompression bomb: 100×100 pixels"):  # noqa: RUF001
        parse_to_document(ImageParser(), path, limited)
    allowed = options("big.gif", enable_ocr=False, limits=ParseLimits(max_image_pixels=10_000))
    assert parse_to_document(ImageParser(), path, allowed).metadata["width"] == "100"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("cut.png", encoded(text_image("cut"), "PNG")[:-400]),
        ("cut.jpg", encoded(text_image("cut"), "JPEG")[:-400]),
        ("cut.gif", encoded(text_image("cut").convert("P"), "GIF")[:-300]),
        ("noise.png", bytes(range(256)) * 40),
        ("empty.jpg", b""),
    ],
)
def test_truncated_random_and_empty_files_are_parse_errors(
    tmp_path: Path, name: str, data: bytes
) -> None:
    path = write(tmp_path, name, data)

    with pytest.raises(ParseError, match=r"not a valid|empty"):
        parse_to_document(ImageParser(), path, options(name))
