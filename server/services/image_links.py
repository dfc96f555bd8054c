"""Image links as a client reads them: stored content links the images Sluice stored by
their catalog references, ``![alt](resource://{uuid})``; what the API returns links URLs.

No storage URL is ever stored: a presigned S3 URL expires (7 days at most) and a relocated
resource lives elsewhere, while its reference keeps resolving. So each response that
returns content (Search, ListChunks) resolves the references in it as it is built, all of
them in one catalog query, to ``files.url`` of where each file is now: a fresh presigned
URL on S3, the public or ``file://`` URL on a local backend. A reference that opens nothing
the content's tenant owns (deleted, unknown, another tenant's) gives way to its alt text,
as a dropped image does. The chunks and the index keep the references: short and stable,
no signatures in the text that is embedded and searched.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from core.markdown_images import (
    ImageLink,
    apply_edits,
    drop_image,
    find_image_links,
    replace_target,
)
from storage.files.base import FileService, StorageError
from storage.files.resource_catalog import SCHEME, ResourceCatalog, is_resource_ref

log = logging.getLogger(__name__)


def resource_links(text: str) -> list[ImageLink]:
    """The image links (Markdown or ``<img>``) of ``text`` that name a resource reference."""
    if SCHEME not in text:  # most content links no stored image: nothing to parse
        return []
    return [link for link in find_image_links(text) if is_resource_ref(link.target)]


def link_images(text: str, links: Sequence[ImageLink], urls: Mapping[str, str]) -> str:
    """``text`` with each of its resource ``links`` pointed at ``urls[reference]``, or
    dropped to its alt text when the reference has no URL there."""
    edits = [
        replace_target(link, urls[link.target]) if link.target in urls else drop_image(link)
        for link in links
    ]
    return apply_edits(text, edits)


def with_image_urls(
    catalog: ResourceCatalog, files: FileService, texts: Sequence[tuple[str, str]]
) -> list[str]:
    """Each ``(tenant id, Markdown)`` of ``texts``, its resource links pointed at URLs of
    the files as they are now."""
    links = [resource_links(text) for _, text in texts]
    refs = {link.target for found in links for link in found}
    if not refs:
        return [text for _, text in texts]
    urls: dict[str, dict[str, str]] = {}  # tenant id → reference → URL
    for ref, resource in catalog.live(refs).items():
        try:
            url = files.url(resource.path)
        except StorageError as exc:  # its backend no longer configured, say
            log.warning("no URL for %s at %s: %s", ref, resource.path, exc)
            continue
        urls.setdefault(resource.tenant_id, {})[ref] = url
    return [
        link_images(text, found, urls.get(tenant_id, {})) if found else text
        for (tenant_id, text), found in zip(texts, links, strict=True)
    ]
