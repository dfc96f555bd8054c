"""Images of a document: stored through FileService, and the Markdown pointed at the copies.

Following the spec («Извлечение и загрузка изображений»), in this order:

1. the docreader's images, consumed one frame at a time as they arrive — only each stored
   image's reference is kept, never the bytes of the whole set;
2. images inline in the Markdown: ``data:`` URIs and base64 payloads in image links and
   ``<img src>``, and bare image data standing in the text;
3. remote http(s) images, fetched under the SSRF policy from the settings (a web page's
   relative links first made absolute against the page's URL).

Icon-sized images (a side under 64 px, or under 512 bytes) are dropped, unless the docreader
marks the image as the uploaded file itself (``is_original``); a dropped image's link
becomes its alt text. Identical bytes are stored once per document. Every stored file is
recorded in the resource catalog as the knowledge's (``KNOWLEDGE_IMAGE``), which is how a
reparse or a delete finds it later. A remote image that is refused or fails keeps its
original link and is only counted: a remote image never fails the document.

The Markdown links a stored image by its catalog reference, ``![alt](resource://{uuid})``,
never by a storage URL: a presigned URL expires (in 7 days at most) and a relocated file
lives elsewhere, while the reference keeps resolving. The API turns references into URLs
afresh whenever it returns content, and the index holds the short, stable references.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from core.image_bytes import (
    InvalidImageData,
    decode_inline_image,
    extension_for,
    image_size,
    sniff_image_type,
)
from core.markdown_images import (
    Edit,
    ImageLink,
    apply_edits,
    drop_image,
    find_bare_image_data,
    find_image_links,
    replace_target,
)
from core.ssrf.hosts import SsrfBlocked
from storage.db.models import Knowledge
from storage.db.repositories.resources import KNOWLEDGE_IMAGE
from storage.files.base import StorageError
from workers.docreader_client import DocumentImage
from workers.net.safe_fetch import FetchError, fetch
from workers.pipeline.reading.parts import ImageParts

log = logging.getLogger(__name__)

MIN_IMAGE_SIDE_PX = 64
MIN_IMAGE_BYTES = 512
# Remote images fetched per document at most: each may take the whole fetch timeout.
MAX_REMOTE_IMAGES = 30
_DROP = ""  # a link target resolved to this loses its image (an icon, invalid data)


@dataclass(frozen=True)
class StoredImage:
    ref: str  # resource://{uuid}, what the Markdown links
    path: str  # where the file was stored (the catalog follows it if it moves)
    width: int  # 0 when unknown (an SVG, say)
    height: int
    mime_type: str
    page: int  # 0 when the image has no page (inline or remote)


@dataclass
class StoredImages:
    markdown: str
    stored: list[StoredImage] = field(default_factory=list)
    icons_dropped: int = 0
    # Inline image data that does not decode to an image (its link became alt text).
    invalid_dropped: int = 0
    remote_fetched: int = 0
    remote_refused: int = 0  # by the SSRF policy
    remote_failed: int = 0  # network, HTTP status, size, not an image, over the per-document cap


def _no_check() -> None:
    pass


class DocumentImages:
    """Takes the docreader's images one by one as their frames arrive (so they are never
    all in memory), then rewrites the Markdown once it is complete."""

    def __init__(
        self,
        parts: ImageParts,
        knowledge: Knowledge,
        *,
        before_fetch: Callable[[], None] = _no_check,
        base_url: str = "",
    ) -> None:
        # ``before_fetch`` runs before each remote fetch: a round told to stop raises there
        # instead of fetching on for up to 30 fetch timeouts. ``base_url``: the web page the
        # Markdown came from, against which its relative image links are fetched.
        self._store = _ImageStore(parts, knowledge, StoredImages(""), before_fetch, base_url)
        self._by_ref: dict[str, str] = {}

    def add(self, image: DocumentImage) -> None:
        self._by_ref[image.ref] = self._store.add(
            image.data,
            image.mime_type,
            image.width,
            image.height,
            image.page,
            keep=image.is_original,
        )

    def finish(self, markdown: str) -> StoredImages:
        store, by_ref = self._store, self._by_ref
        links = find_image_links(markdown)
        bare = find_bare_image_data(markdown, links)
        edits: list[Edit] = []
        for link in links:
            ref = by_ref[link.target] if link.target in by_ref else store.resolve(link.target)
            if ref is not None:
                edits.append(drop_image(link) if ref == _DROP else _retarget(markdown, link, ref))
        for start, end in bare:
            ref = store.resolve(markdown[start:end])
            if ref == _DROP:
                edits.append((start, end, ""))
            elif ref is not None:
                edits.append((start, end, f"![image]({ref})"))
        result = store.result
        result.markdown = apply_edits(markdown, edits)
        return result


class _ImageStore:
    def __init__(
        self,
        parts: ImageParts,
        knowledge: Knowledge,
        result: StoredImages,
        before_fetch: Callable[[], None] = _no_check,
        base_url: str = "",
    ) -> None:
        self._before_fetch = before_fetch
        self._base_url = base_url
        self._catalog = parts.catalog
        self._knowledge = knowledge
        self._files = parts.files_for_knowledge_base(knowledge.knowledge_base_id)
        self.result = result
        self._by_digest: dict[str, str] = {}
        self._remote: dict[str, str | None] = {}
        self._policy = parts.settings.url_policy
        self._outbound = parts.settings.outbound

    def add(
        self, data: bytes, mime_type: str, width: int, height: int, page: int, *, keep: bool
    ) -> str:
        """The reference of the stored copy (``resource://{uuid}``), or _DROP for an icon."""
        if not width or not height:
            width, height = image_size(data)
        if not keep and _is_icon(len(data), width, height):
            self.result.icons_dropped += 1
            return _DROP
        digest = hashlib.sha256(data).hexdigest()
        known = self._by_digest.get(digest)
        if known is not None:
            return known
        mime_type = mime_type or sniff_image_type(data) or "application/octet-stream"
        tenant_id, knowledge_id = self._knowledge.tenant_id, self._knowledge.id
        name = f"{knowledge_id}-{digest[:16]}.{extension_for(mime_type)}"
        path = self._files.save_bytes(tenant_id, name, data)
        try:
            ref = self._catalog.register(
                path,
                tenant_id=tenant_id,
                size=len(data),
                content_type=mime_type,
                owner_type=KNOWLEDGE_IMAGE,
                owner_id=knowledge_id,
            ).ref
        except BaseException:
            # Uncatalogued, the file would be an orphan: no reparse or delete finds it.
            self._discard(path)
            raise
        self.result.stored.append(StoredImage(ref, path, width, height, mime_type, page))
        self._by_digest[digest] = ref
        return ref

    def _discard(self, path: str) -> None:
        try:
            self._files.delete(path)
        except StorageError as exc:  # the registration's error is the one to report
            log.warning(
                "knowledge %s: could not remove uncatalogued image %s: %s",
                self._knowledge.id,
                path,
                exc,
            )

    def resolve(self, target: str) -> str | None:
        """A stored reference, _DROP, or None to leave the link as it is (not an image we handle,
        or a remote image that could not be had)."""
        try:
            inline = decode_inline_image(target, max_bytes=self._outbound.remote_image_max_bytes)
        except InvalidImageData as exc:
            log.warning("knowledge %s: dropping inline image: %s", self._knowledge.id, exc)
            self.result.invalid_dropped += 1
            return _DROP
        if inline is not None:
            return self.add(inline.data, inline.mime_type, 0, 0, 0, keep=False)
        try:
            if self._base_url and not urlsplit(target).scheme:
                target = urljoin(self._base_url, target)
        except ValueError:  # "http://[oops": nothing that can be fetched
            return None
        if target[:8].lower().startswith(("http://", "https://")):
            if target not in self._remote:
                self._remote[target] = self._fetch(target)
            return self._remote[target]
        return None

    def _fetch(self, url: str) -> str | None:
        self._before_fetch()
        result = self.result
        if result.remote_fetched + result.remote_refused + result.remote_failed >= (
            MAX_REMOTE_IMAGES
        ):
            result.remote_failed += 1
            log.warning(
                "knowledge %s: over %d remote images, %s left as is",
                self._knowledge.id,
                MAX_REMOTE_IMAGES,
                url,
            )
            return None
        try:
            fetched = fetch(
                url,
                self._policy,
                max_bytes=self._outbound.remote_image_max_bytes,
                timeout_s=self._outbound.fetch_timeout_s,
                accept="image/*",
            )
        except SsrfBlocked as exc:
            result.remote_refused += 1
            log.warning(
                "knowledge %s: remote image %s refused: %s", self._knowledge.id, url, exc.reason
            )
            return None
        except FetchError as exc:
            result.remote_failed += 1
            log.warning(
                "knowledge %s: remote image %s failed: %s", self._knowledge.id, url, exc.reason
            )
            return None
        except Exception:  # whatever else went wrong, one image never fails the document
            result.remote_failed += 1
            log.exception("knowledge %s: remote image %s failed", self._knowledge.id, url)
            return None
        mime_type = sniff_image_type(fetched.data)
        if mime_type is None and fetched.content_type.startswith("image/"):
            mime_type = fetched.content_type
        if mime_type is None:
            result.remote_failed += 1
            log.warning(
                "knowledge %s: remote image %s is not an image (%s)",
                self._knowledge.id,
                url,
                fetched.content_type or "no content type",
            )
            return None
        result.remote_fetched += 1
        return self.add(fetched.data, mime_type, 0, 0, 0, keep=False)


def _is_icon(size: int, width: int, height: int) -> bool:
    if size < MIN_IMAGE_BYTES:
        return True
    # Unknown dimensions (0) are not small ones.
    return bool(width and height) and (width < MIN_IMAGE_SIDE_PX or height < MIN_IMAGE_SIDE_PX)


def _retarget(markdown: str, link: ImageLink, target: str) -> Edit:
    """Point the link at ``target``; a linked image ``[![alt](x)](page)`` is unwrapped (only
    Markdown images are ever wrapped)."""
    if not link.wrapped:
        return replace_target(link, target)
    image = (
        markdown[link.image_start : link.target_start]
        + target
        + markdown[link.target_end : link.image_end]
    )
    return link.start, link.end, image
