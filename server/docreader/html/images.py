"""Where the images an HTML page links to come from: ``data:`` URIs in the page itself, or
bytes found next to it (an EPUB's zip members, an MHTML's parts), all numbered by one
``ImageCollector`` so refs stay unique within the document."""

from __future__ import annotations

import base64

from server.docreader.html.converter import ImageResolver
from server.docreader.parsers.data_uri import ImageCollector


def add_image_bytes(collector: ImageCollector, data: bytes, mime_type: str) -> str | None:
    """The ref for image bytes, or None when ``mime_type`` is not an image type or the bytes
    are empty. ImageCollector takes images as data URIs, so the bytes travel as one."""
    if not data or not mime_type.lower().startswith("image/"):
        return None
    return collector.add_data_uri(f"data:{mime_type};base64,{base64.b64encode(data).decode()}")


def data_uri_images(collector: ImageCollector) -> ImageResolver:
    """``data:`` images become refs (a corrupt one is left out); other sources stay links."""

    def resolve(source: str) -> str | None:
        if source[:5].lower() == "data:":
            return collector.add_data_uri(source)
        return source

    return resolve
