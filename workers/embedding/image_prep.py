"""A picture made fit for an image-embedding endpoint (spec: imageprep.Prepare): PNG or
JPEG, its longest side at most MAX_SIDE pixels and its bytes at most MAX_BYTES, turned
upright by its EXIF orientation. Multimodal embedding models resize to a few hundred pixels
themselves (CLIP-style 224-512, Jina's up to 896), so a larger picture only costs upload
time and trips providers' request-size limits."""

from __future__ import annotations

import io

from PIL import Image, ImageOps, UnidentifiedImageError

from workers.embedding.base import EmbeddingError, PreparedImage

MAX_SIDE = 1024
MAX_BYTES = 4 * 1024 * 1024
_SENT_AS_IS = frozenset({"image/png", "image/jpeg"})
_JPEG_QUALITY = 90


class ImagePrepError(EmbeddingError):
    """The picture cannot be decoded into something an endpoint takes (SVG, corrupt)."""


def prepare_image(data: bytes, mime_type: str) -> PreparedImage:
    try:
        with Image.open(io.BytesIO(data)) as opened:
            # Pillow reads only the header here: a fitting PNG or JPEG is sent untouched.
            fits = max(opened.size) <= MAX_SIDE and len(data) <= MAX_BYTES
            orientation = opened.getexif().get(0x0112, 1)
            if mime_type in _SENT_AS_IS and fits and orientation == 1:
                return PreparedImage(mime_type, data)
            picture = ImageOps.exif_transpose(opened)
            picture.thumbnail((MAX_SIDE, MAX_SIDE))
            return _encoded(picture)
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        kind = mime_type or "unknown type"
        raise ImagePrepError(f"the picture ({kind}) cannot be read: {exc}") from exc


def _encoded(picture: Image.Image) -> PreparedImage:
    """PNG keeps transparency; everything else is a JPEG, smaller for photographs."""
    out = io.BytesIO()
    if picture.mode in ("RGBA", "LA") or "transparency" in picture.info:
        picture.convert("RGBA").save(out, format="PNG", optimize=True)
        return PreparedImage("image/png", out.getvalue())
    picture.convert("RGB").save(out, format="JPEG", quality=_JPEG_QUALITY)
    return PreparedImage("image/jpeg", out.getvalue())
