"""A source knowledge's stored files copied into the target knowledge base's storage: its
original and its extracted images, each once, catalogued as the clone's; and the clone's
texts pointed at the copies.

Chunk content links a stored image by its catalog reference (``resource://{uuid}``), and an
older row may hold the physical path; both are rewritten to the copy's reference. Longest
first, in one pass: a reference or path that is a prefix of another never cuts that one."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from storage.db.models import Knowledge
from storage.db.repositories.resources import KNOWLEDGE_IMAGE, KNOWLEDGE_ORIGINAL
from storage.files.resource_catalog import Resource, is_resource_ref
from workers.clone.parts import CloneParts

_READ_BYTES = 1 << 20


class FileCopier:
    """Copies for one clone: each source file once (a cache by reference or path)."""

    def __init__(self, ctx: CloneParts, source: Knowledge, target: Knowledge) -> None:
        self._ctx = ctx
        self._source = source
        self._target = target
        self._files = ctx.files_for_knowledge_base(target.knowledge_base_id)
        # Source reference or physical path -> the copy's reference.
        self._copies: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None

    def copy_images(self) -> int:
        """Every image the source knowledge owns; returns how many were copied."""
        images = self._ctx.catalog.owned_by([KNOWLEDGE_IMAGE], [self._source.id])
        for image in images:
            self._copy_resource(image, KNOWLEDGE_IMAGE)
        return len(images)

    def copy_original(self) -> str:
        """The copy's reference of the source's original file ("" when it has none)."""
        path = self._source.file_path
        if not path:
            return ""
        if is_resource_ref(path):
            return self._copy_resource(self._ctx.catalog.get(path), KNOWLEDGE_ORIGINAL)
        return self._copy(path, path, KNOWLEDGE_ORIGINAL, self._source.file_size, "")

    def _copy_resource(self, resource: Resource, owner_type: str) -> str:
        ref = self._copy(
            resource.ref, resource.path, owner_type, resource.size, resource.content_type
        )
        self._copies.setdefault(resource.path, ref)
        return ref

    def _copy(self, key: str, path: str, owner_type: str, size: int, content_type: str) -> str:
        known = self._copies.get(key)
        if known is not None:
            return known
        name = path.rsplit("/", 1)[-1]
        tenant_id, knowledge_id = self._target.tenant_id, self._target.id
        with self._ctx.catalog.open(path) as stream:
            stored = self._files.save_stream(tenant_id, knowledge_id, name, _frames(stream))
        # Registered as the clone's: deleting the clone (or a half-made one) removes it.
        with self._ctx.catalog.registered(
            stored.path,
            tenant_id=tenant_id,
            size=stored.size or size,
            content_type=content_type,
            owner_type=owner_type,
            owner_id=knowledge_id,
        ) as resource:
            self._copies[key] = resource.ref
        self._pattern = None
        return resource.ref

    def rewrite(self, text: str) -> str:
        """``text`` with every copied file's old reference or path replaced by the copy's."""
        if not self._copies or not text:
            return text
        if self._pattern is None:
            keys = sorted(self._copies, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(key) for key in keys))
        return self._pattern.sub(lambda match: self._copies[match.group(0)], text)

    def rewrite_json(self, value: Any) -> Any:
        """A JSON value (chunk image_info, metadata) with its strings rewritten."""
        if value is None or not self._copies:
            return value
        return json.loads(self.rewrite(json.dumps(value)))


def _frames(stream: BinaryIO) -> Iterator[bytes]:
    while frame := stream.read(_READ_BYTES):
        yield frame
