"""Where the images an HTML page links to come from: ``data:`` URIs in the page itself, or
bytes found next to it (an EPUB's zip members, an MHTML's parts), all numbered by one
``ImageCollector`` so refs stay unique within the document."""

from __future__ import annotations

from collections.abc import Callable

from server.docreader.html.converter import ImageResolver
from server.docreader.image_collector import ImageCollector


def add_image_bytes(collector: ImageCollector, data: bytes, mime_type: str) -> str | None:
    """The ref for image bytes, or None when ``mime_type`` is not an image type or the bytes
    are empty."""
    if not data or not mime_type.lower().startswith("image/"):
        return None
    return collector.add_bytes(data, mime_type)


def data_uri_images(
    collector: ImageCollector, other: Callable[[str], str | None] | None = None
) -> ImageResolver:
    """``data:`` images become refs (a corrupt one is left out); other sources go to
    ``other`` (an EPUB's members, an MHTML's parts), else stay links."""

    def resolve(source: str) -> str | None:
        if source[:5].lower() == "data:":
            return collector.add_data_uri(source)
        return other(source) if other is not None else source

    return resolve
