"""The stored images a round's text chunks link (``![alt](resource://...)``), each once,
in document order, with the text chunk that first links it: what the multimodal stage
hands out, one task per image."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.markdown_images import find_image_links
from storage.files.resource_catalog import is_resource_ref
from workers.pipeline.round.resume import PlannedChunk


@dataclass(frozen=True)
class RoundImage:
    chunk_id: str
    url: str  # the catalog reference the chunk links
    index: int  # 1-based, in document order


def round_images(chunks: Sequence[PlannedChunk]) -> list[RoundImage]:
    images: list[RoundImage] = []
    seen: set[str] = set()
    for chunk in chunks:
        for link in find_image_links(chunk.content):
            if is_resource_ref(link.target) and link.target not in seen:
                seen.add(link.target)
                images.append(RoundImage(chunk.id, link.target, len(images) + 1))
    return images
