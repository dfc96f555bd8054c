"""Pictures prepared for an image-embedding endpoint: a fitting PNG or JPEG goes as it is,
anything larger or of another format becomes a PNG (with transparency) or a JPEG whose
longest side is MAX_SIDE, turned upright; what cannot be decoded is refused clearly."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from workers.embedding.image_prep import MAX_SIDE, ImagePrepError, prepare_image


def encoded(picture: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    picture.save(out, format=fmt, **options)
    return out.getvalue()


def opened(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


def test_a_fitting_png_is_sent_as_it_is() -> None:
    data = encoded(Image.new("RGB", (640, 200), "white"), "PNG")
    prepared = prepare_image(data, "image/png")
    assert (prepared.mime_type, prepared.data) == ("image/png", data)


def test_a_large_picture_is_scaled_down_to_the_limit() -> None:
    data = encoded(Image.new("RGB", (4000, 1000), "navy"), "BMP")
    prepared = prepare_image(data, "image/bmp")
    assert prepared.mime_type == "image/jpeg"
    assert opened(prepared.data).size == (MAX_SIDE, MAX_SIDE // 4)


def test_transparency_is_kept_as_png() -> None:
    data = encoded(Image.new("RGBA", (300, 300), (255, 0, 0, 0)), "WEBP", lossless=True)
    prepared = prepare_image(data, "image/webp")
    assert prepared.mime_type == "image/png"
    assert opened(prepared.data).mode == "RGBA"


def test_a_rotated_photo_is_turned_upright() -> None:
    photo = Image.new("RGB", (400, 100), "green")
    exif = photo.getexif()
    exif[0x0112] = 6  # rotated 90° clockwise: shown 100 wide, 400 high
    prepared = prepare_image(encoded(photo, "JPEG", exif=exif), "image/jpeg")
    assert opened(prepared.data).size == (100, 400)


def test_what_cannot_be_decoded_is_refused() -> None:
    with pytest.raises(ImagePrepError, match="image/svg"):
        prepare_image(b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml")
