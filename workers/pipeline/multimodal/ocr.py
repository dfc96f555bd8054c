"""The text in a stored image, read by the docreader's OCR (tesseract, with the languages
configured or detected from the script), over its gRPC contract like any document: the
workers never run OCR themselves, and a full deployment's workers need no tesseract."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

from core.markdown_images import apply_edits, find_image_links
from workers.docreader_client import DocReaderClient, DocumentImage, ReadConfig

# The image types the docreader reads as a document (its OCR reads these).
OCR_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif"}


def ocr_supported(mime_type: str) -> bool:
    return mime_type in OCR_EXTENSIONS


def read_image_text(
    docreader: DocReaderClient,
    data: bytes,
    mime_type: str,
    *,
    languages: Sequence[str],
    should_stop: Callable[[], bool],
) -> str:
    """The OCR text of one image ("" when none). Raises DocReaderCallError (and
    DocReaderCancelled once ``should_stop`` says so)."""
    extension = OCR_EXTENSIONS[mime_type]
    outcome = docreader.read_file(
        io.BytesIO(data),
        file_name=f"image.{extension}",
        file_type=extension,
        config=ReadConfig(enable_ocr=True, ocr_languages=tuple(languages)),
        should_stop=should_stop,
        on_image=_ignore,
    )
    # The docreader links the image itself above its text: only the text is wanted.
    links = find_image_links(outcome.markdown)
    return apply_edits(outcome.markdown, [(link.start, link.end, "") for link in links]).strip()


def _ignore(image: DocumentImage) -> None:
    """The image read is the one stored already."""
