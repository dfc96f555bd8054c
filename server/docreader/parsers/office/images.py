"""Numbers the images of one office document and hands each to the sink once.

Images are keyed by their package part name, so a picture placed twice gets one ref; refs are
``image-N.<ext>`` with the extension of the stored part.
"""

from __future__ import annotations

import re

from core.image_bytes import image_size
from server.docreader.parser_contract import DocumentSink, ParsedImage

_JPEG_EXTENSIONS = {"jpeg", "jpe", "jfif"}


class OfficeImages:
    def __init__(self, sink: DocumentSink) -> None:
        self._sink = sink
        self._refs: dict[str, str] = {}

    @property
    def count(self) -> int:
        return len(self._refs)

    def add(self, key: str, data: bytes, content_type: str, ext: str, *, page: int = 0) -> str:
        """The ref of the image stored under ``key`` (a part name), adding it on first use."""
        ref = self._refs.get(key)
        if ref is None:
            ref = f"image-{len(self._refs) + 1}.{_clean_extension(ext)}"
            width, height = image_size(data)
            self._sink.add_image(
                ParsedImage(
                    ref=ref,
                    data=data,
                    mime_type=content_type or "application/octet-stream",
                    width=width,
                    height=height,
                    is_original=True,
                    page=page,
                )
            )
            self._refs[key] = ref
        return ref


def _clean_extension(ext: str) -> str:
    # Part names come from the file, so only a short alphanumeric extension is kept.
    cleaned = re.sub(r"[^a-z0-9]", "", ext.lower().lstrip("."))[:8] or "bin"
    return "jpg" if cleaned in _JPEG_EXTENSIONS else cleaned
