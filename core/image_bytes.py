"""Image bytes: what they are (magic numbers), how big (header), and inline payloads decoded.

One implementation for the docreader (which pulls images out of documents) and the workers
(which store them): the docreader may import neither the workers nor storage, only core.

Documents carry images inline as ``data:`` URIs, as ``base64,...`` fragments without the
``data:`` part, or as a raw base64 payload in an ``<img src>``; ``decode_inline_image``
turns any of them into bytes, ``decode_data_uri`` only the first.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import struct
import warnings
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from PIL import Image, UnidentifiedImageError

from core.errors import SluiceError

_DATA_URI = re.compile(
    r"^data:(?P<mime>[\w.+-]+/[\w.+-]+)?(?P<params>(?:;[\w.+-]+=[^;,]*)*)(?P<b64>;base64)?,"
    r"(?P<payload>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_PREFIXED_BASE64 = re.compile(r"^base64,(?P<payload>.*)$", re.IGNORECASE | re.DOTALL)
_BASE64 = re.compile(r"^[A-Za-z0-9+/_-]+={0,2}$")
_WHITESPACE = re.compile(r"\s+")
# A bare payload shorter than this is more likely a word or a file name than an image.
MIN_BARE_BASE64_CHARS = 64
_EXTENSIONS = {
    "image/jpeg": "jpg",
    "image/jpg": "jpg",
    "image/pjpeg": "jpg",
    "image/svg+xml": "svg",
    "image/x-icon": "ico",
    "image/vnd.microsoft.icon": "ico",
    "image/tiff": "tif",
}


class InvalidImageData(SluiceError, ValueError):
    """The value claims to be an inline image but is corrupt, too large, or not an image."""


@dataclass(frozen=True)
class InlineImage:
    mime_type: str
    data: bytes


def sniff_image_type(data: bytes) -> str | None:
    """The MIME type the magic number names, for the formats documents carry; else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"BM") and len(data) >= 26:
        return "image/bmp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    if data[4:12] in (b"ftypavif", b"ftypavis"):
        return "image/avif"
    if data[4:12] in (b"ftypheic", b"ftypheix", b"ftypmif1"):
        return "image/heic"
    if data.startswith(b"\x00\x00\x01\x00"):
        return "image/x-icon"
    head = data[:512].lstrip().lower()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in head):
        return "image/svg+xml"
    return None


def image_size(data: bytes) -> tuple[int, int]:
    """(width, height) from the image header; (0, 0) when unknown (an SVG, corrupt data).

    PNG, GIF, JPEG, WebP and BMP headers are read directly (cheap, no decoder involved);
    other formats (TIFF, ICO...) are left to Pillow, which also reads only the header."""
    size = _header_size(data)
    return size if size != (0, 0) else _pillow_size(data)


def _header_size(data: bytes) -> tuple[int, int]:
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data.startswith(b"BM") and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return abs(int(width)), abs(int(height))
    return 0, 0


def _jpeg_size(data: bytes) -> tuple[int, int]:
    position = 2
    while position + 9 <= len(data):
        if data[position] != 0xFF:
            return 0, 0
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        (length,) = struct.unpack(">H", data[position + 2 : position + 4])
        # Start-of-frame markers carry the size; C4, C8 and CC are not frames.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[position + 5 : position + 9])
            return int(width), int(height)
        position += 2 + int(length)
    return 0, 0


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return 0, 0


def _pillow_size(data: bytes) -> tuple[int, int]:
    try:
        with warnings.catch_warnings():
            # Only the header is read; a huge declared size is no bomb here.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return 0, 0
    return int(width), int(height)


def extension_for(mime_type: str) -> str:
    """The file extension (no dot) for an image MIME type: its subtype, letters and digits."""
    known = _EXTENSIONS.get(mime_type.lower())
    if known:
        return known
    subtype = mime_type.lower().partition("/")[2].split("+", 1)[0]
    return re.sub(r"[^a-z0-9]", "", subtype) or "bin"


def decode_data_uri(value: str, *, max_bytes: int | None = None) -> InlineImage | None:
    """The image in ``data:`` URI ``value``, None if ``value`` is no data URI.

    The type is the one the bytes' magic number names, else the URI's label. Raises
    InvalidImageData when the URI is not an image's or does not decode to one of at most
    ``max_bytes`` (no cap when None: the URI text already bounds it)."""
    match = _DATA_URI.match(value.strip())
    if match is None:
        return None
    mime = (match.group("mime") or "").lower()
    if not mime.startswith("image/"):
        raise InvalidImageData(f"a data URI of type {mime or 'text/plain'!r}, not an image")
    if match.group("b64"):
        data = _decode_base64(match.group("payload"), max_bytes)
    else:
        data = _checked_size(unquote_to_bytes(match.group("payload")), max_bytes)
    return InlineImage(sniff_image_type(data) or mime, data)


def decode_inline_image(value: str, *, max_bytes: int) -> InlineImage | None:
    """The image ``value`` carries inline, None if it carries none (a URL, a file name...).

    Raises InvalidImageData when ``value`` is a data URI or ``base64,`` payload that does not
    decode to an image of at most ``max_bytes``."""
    text = value.strip()
    from_uri = decode_data_uri(text, max_bytes=max_bytes)
    if from_uri is not None:
        return from_uri
    prefixed = _PREFIXED_BASE64.match(text)
    if prefixed is not None:
        data = _decode_base64(prefixed.group("payload"), max_bytes)
        return InlineImage(_sniffed(data), data)
    compact = _WHITESPACE.sub("", text)
    if len(compact) < MIN_BARE_BASE64_CHARS or not _BASE64.match(compact):
        return None
    try:
        data = _decode_base64(compact, max_bytes)
    except InvalidImageData:
        return None
    mime = sniff_image_type(data)
    return None if mime is None else InlineImage(mime, data)


def _sniffed(data: bytes) -> str:
    mime = sniff_image_type(data)
    if mime is None:
        raise InvalidImageData("the base64 payload is not an image")
    return mime


def _decode_base64(payload: str, max_bytes: int | None) -> bytes:
    compact = _WHITESPACE.sub("", payload)
    if max_bytes is not None and len(compact) * 3 // 4 > max_bytes + 2:
        raise InvalidImageData(f"the inline image is over the {max_bytes}-byte cap")
    if not compact or not _BASE64.match(compact):
        raise InvalidImageData("the base64 payload has characters base64 does not use")
    padded = compact + "=" * (-len(compact) % 4)
    try:
        if "-" in compact or "_" in compact:
            data = base64.urlsafe_b64decode(padded)
        else:
            data = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidImageData(f"the base64 payload does not decode: {exc}") from exc
    return _checked_size(data, max_bytes)


def _checked_size(data: bytes, max_bytes: int | None) -> bytes:
    if not data:
        raise InvalidImageData("the inline image is empty")
    if max_bytes is not None and len(data) > max_bytes:
        raise InvalidImageData(f"the inline image is over the {max_bytes}-byte cap")
    return data
