"""Images embedded as ``data:`` URIs, pulled out into ParsedImage with refs ``image-N.<ext>``."""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import unquote_to_bytes

from server.docreader.parsers.base import ParsedImage
from server.docreader.parsers.image_size import image_size

_DATA_URI = re.compile(
    r"^data:(?P<mime>image/[\w.+-]+)(?P<params>(?:;[\w.+-]+=[^;,]*)*)(?P<b64>;base64)?,"
    r"(?P<payload>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_EXTENSIONS = {
    "image/jpeg": "jpg",
    "image/jpg": "jpg",
    "image/pjpeg": "jpg",
    "image/svg+xml": "svg",
    "image/x-icon": "ico",
    "image/vnd.microsoft.icon": "ico",
    "image/tiff": "tif",
}


def decode_data_uri(uri: str) -> tuple[str, bytes] | None:
    """``(mime_type, bytes)`` of an image data URI, or None if it is not one or is corrupt."""
    match = _DATA_URI.match(uri.strip())
    if match is None:
        return None
    mime = match.group("mime").lower()
    payload = match.group("payload")
    if match.group("b64"):
        try:
            data = base64.b64decode(re.sub(r"\s+", "", payload), validate=True)
        except (binascii.Error, ValueError):
            return None
    else:
        data = unquote_to_bytes(payload)
    return (mime, data) if data else None


class ImageCollector:
    """Numbers the images of one document; identical bytes get one ref."""

    def __init__(self) -> None:
        self.images: list[ParsedImage] = []
        self._refs: dict[bytes, str] = {}

    def add_data_uri(self, uri: str) -> str | None:
        """The ref for the image in ``uri``, or None when ``uri`` is not an image data URI."""
        decoded = decode_data_uri(uri)
        if decoded is None:
            return None
        mime, data = decoded
        return self.add_bytes(data, mime)

    def add_bytes(self, data: bytes, mime: str) -> str:
        """The ref for image ``data`` of type ``mime`` (an ``image/...`` type)."""
        ref = self._refs.get(data)
        if ref is None:
            mime = mime.lower()
            ref = f"image-{len(self.images) + 1}.{_extension(mime)}"
            width, height = image_size(data)
            self.images.append(ParsedImage(ref, data, mime, width, height))
            self._refs[data] = ref
        return ref


def _extension(mime: str) -> str:
    known = _EXTENSIONS.get(mime)
    if known:
        return known
    subtype = mime.split("/", 1)[1]
    return re.sub(r"[^a-z0-9]", "", subtype.split("+", 1)[0]) or "bin"
