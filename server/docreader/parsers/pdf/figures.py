"""Embedded images → ParsedImage, numbered ``image-N.png`` / ``image-N.jpg`` per document.

JPEG streams (DCTDecode) are passed through untouched when they are grey or RGB; everything
else (Flate, JPEG 2000, JBIG2, CCITT, CMYK JPEG) is decoded by PDFium and re-encoded as PNG.
An image used on many pages (a logo) is extracted once: images are keyed by a digest of their
stored bytes before any decoding. Images under 16 px a side are noise and skipped, and so are
images above the pixel limit (a decompression bomb would exhaust memory first).
"""

from __future__ import annotations

import ctypes
import hashlib
import io
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

from server.docreader.parser_contract import DocumentSink, ParsedImage
from server.docreader.parsers.pdf.objects import PageImage
from server.docreader.safety.limits import ParseLimits

MIN_SIDE_PX = 16
_SIMPLE_FILTERS = frozenset(
    {"ASCIIHexDecode", "ASCII85Decode", "RunLengthDecode", "FlateDecode", "LZWDecode"}
)
_PASS_THROUGH_MODES = frozenset({"L", "RGB"})
_PNG_COMPRESSION = 3


class PdfImages:
    """Hands each distinct image of the document to the sink once, under a fresh ref."""

    def __init__(self, sink: DocumentSink, limits: ParseLimits) -> None:
        self._sink = sink
        self._limits = limits
        self._refs: dict[bytes, str | None] = {}
        self.count = 0

    def add(self, data: bytes, mime_type: str, size: tuple[int, int], page: int) -> str:
        self.count += 1
        extension = "jpg" if mime_type == "image/jpeg" else "png"
        ref = f"image-{self.count}.{extension}"
        self._sink.add_image(ParsedImage(ref, data, mime_type, size[0], size[1], page=page))
        return ref

    def figure(self, image: PageImage, page: int) -> str | None:
        """The ref of an embedded image, or None when it is skipped or cannot be decoded."""
        width, height = image.pixel_width, image.pixel_height
        if min(width, height) < MIN_SIDE_PX or width * height > self._limits.max_image_pixels:
            return None
        stored = _stream(image.handle, pdfium_c.FPDFImageObj_GetImageDataRaw)
        key = hashlib.sha256(stored).digest() + f"{width}x{height}".encode()
        if key in self._refs:  # seen before, decoded or not: a broken logo fails once
            return self._refs[key]
        try:
            encoded = _encode(image.handle, stored)
        except (OSError, ValueError, Image.DecompressionBombError, pdfium.PdfiumError):
            encoded = None
        ref = None if encoded is None else self.add(encoded[0], encoded[1], encoded[2], page)
        self._refs[key] = ref
        return ref


def _encode(handle: Any, stored: bytes) -> tuple[bytes, str, tuple[int, int]] | None:
    filters = _filters(handle)
    if filters and filters[-1] == "DCTDecode" and _SIMPLE_FILTERS.issuperset(filters[:-1]):
        jpeg = (
            stored
            if len(filters) == 1
            else _stream(handle, pdfium_c.FPDFImageObj_GetImageDataDecoded)
        )
        with Image.open(io.BytesIO(jpeg)) as probe:
            if probe.mode in _PASS_THROUGH_MODES:
                return jpeg, "image/jpeg", probe.size
    raw_bitmap = pdfium_c.FPDFImageObj_GetBitmap(handle)
    if not raw_bitmap:
        return None
    bitmap = pdfium.PdfBitmap.from_raw(raw_bitmap)
    # Closing frees the pixels now rather than at garbage collection; safe because the PNG
    # is encoded (and nothing else refers to the buffer) before the bitmap is closed.
    bitmap.warn_on_close = False
    try:
        picture = bitmap.to_pil()
        if picture.mode not in ("1", "L", "RGB", "RGBA"):
            picture = picture.convert("RGB")
        buffer = io.BytesIO()
        picture.save(buffer, format="PNG", compress_level=_PNG_COMPRESSION)
        return buffer.getvalue(), "image/png", picture.size
    finally:
        bitmap.close()


def _stream(handle: Any, getter: Any) -> bytes:
    length = int(getter(handle, None, 0))
    if length <= 0:
        return b""
    buffer = (ctypes.c_ubyte * length)()
    getter(handle, buffer, length)
    return bytes(buffer)


def _filters(handle: Any) -> list[str]:
    names: list[str] = []
    for index in range(pdfium_c.FPDFImageObj_GetImageFilterCount(handle)):
        length = pdfium_c.FPDFImageObj_GetImageFilter(handle, index, None, 0)
        buffer = ctypes.create_string_buffer(length)
        pdfium_c.FPDFImageObj_GetImageFilter(handle, index, buffer, length)
        names.append(buffer.value.decode("ascii", "replace"))
    return names
