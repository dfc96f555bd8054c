"""Images embedded as ``data:`` URIs, pulled out into ParsedImage with refs ``image-N.<ext>``."""

from __future__ import annotations

from core.image_bytes import InvalidImageData, decode_data_uri, extension_for, image_size
from server.docreader.parser_contract import ParsedImage


class ImageCollector:
    """Numbers the images of one document; identical bytes get one ref."""

    def __init__(self) -> None:
        self.images: list[ParsedImage] = []
        self._refs: dict[bytes, str] = {}

    def add_data_uri(self, uri: str) -> str | None:
        """The ref for the image in ``uri``, or None when ``uri`` is not an image data URI
        (or a corrupt one)."""
        try:
            image = decode_data_uri(uri)
        except InvalidImageData:
            return None
        return None if image is None else self.add_bytes(image.data, image.mime_type)

    def add_bytes(self, data: bytes, mime: str) -> str:
        """The ref for image ``data`` of type ``mime`` (an ``image/...`` type)."""
        ref = self._refs.get(data)
        if ref is None:
            mime = mime.lower()
            ref = f"image-{len(self.images) + 1}.{extension_for(mime)}"
            width, height = image_size(data)
            self.images.append(ParsedImage(ref, data, mime, width, height))
            self._refs[data] = ref
        return ref
