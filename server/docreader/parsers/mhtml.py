"""MHTML (a web page saved with its resources as one MIME message) → Markdown of the page.

Python's ``email`` parser (modern policy) splits the message; the first ``text/html`` part is
the page, decoded from its transfer encoding and read in its declared charset. Parts with an
``image/*`` type are the saved images: an ``<img>`` whose source matches a part's
``Content-Location`` (also after resolving it against the page's own location) or its
``cid:`` Content-ID links to that image's ref. Only images the page shows are emitted; the
rest of a saved page's resources (CSS backgrounds, icons of dropped menus) are noise. The
page itself is converted exactly like an HTML file.
"""

from __future__ import annotations

import email
from email import policy
from email.errors import MessageError
from email.message import EmailMessage, Message
from pathlib import Path
from urllib.parse import urljoin

from server.docreader.errors import ParseError
from server.docreader.html.converter import ImageResolver
from server.docreader.html.images import add_image_bytes, data_uri_images
from server.docreader.html.page import convert_page
from server.docreader.image_collector import ImageCollector
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.plain_text import read_limited
from server.docreader.safety.limits import ParseLimits


class MhtmlParser:
    def max_input_bytes(self, limits: ParseLimits) -> int:
        return limits.max_text_bytes

    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        data = read_limited(source, options.limits)
        try:
            page_part, images = _split(email.message_from_bytes(data, policy=policy.default))
            html = _payload(page_part)
            base = _header(page_part, "Content-Location")
            charset = page_part.get_content_charset()
        except (MessageError, ValueError, LookupError) as err:
            raise ParseError(f"the MHTML file is not a readable MIME message: {err}") from err
        collector = ImageCollector()
        page = convert_page(html, images.resolver(collector, base), declared_encoding=charset)
        page.write_to(sink, collector.images)


def _split(message: Message) -> tuple[Message, _SavedImages]:
    """The page part and the saved images of the message."""
    page_part: Message | None = None
    images = _SavedImages()
    for part in message.walk():
        if part.is_multipart():
            continue
        content_type = part.get_content_type()
        if content_type == "text/html" and page_part is None:
            page_part = part
        elif content_type.startswith("image/"):
            images.add(part)
    if page_part is None:
        raise ParseError("the MHTML file has no text/html part: it is not a saved web page")
    return page_part, images


class _SavedImages:
    def __init__(self) -> None:
        self._parts: dict[str, Message] = {}  # Content-Location or "cid:<Content-ID>" → part

    def add(self, part: Message) -> None:
        location = _header(part, "Content-Location")
        if location:
            self._parts.setdefault(location, part)
        content_id = _header(part, "Content-ID").strip("<>")
        if content_id:
            self._parts.setdefault(f"cid:{content_id}", part)

    def resolver(self, collector: ImageCollector, base: str) -> ImageResolver:
        refs: dict[int, str | None] = {}  # id(part) → ref: each part is decoded once

        def saved_part(source: str) -> str | None:
            part = self._parts.get(source)
            if part is None and base:
                part = self._parts.get(urljoin(base, source))
            if part is None:
                return source  # not saved with the page: the remote link stays
            key = id(part)
            if key not in refs:
                try:
                    data = _payload(part)
                except (ValueError, LookupError):  # an undecodable part is a missing image
                    data = b""
                refs[key] = add_image_bytes(collector, data, part.get_content_type())
            return refs[key]

        return data_uri_images(collector, saved_part)


def _payload(part: Message) -> bytes:
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


def _header(part: Message | EmailMessage, name: str) -> str:
    value = part.get(name)
    return str(value).strip() if value is not None else ""
