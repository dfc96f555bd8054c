"""The target knowledge base's tag of a source tag's name, created where missing: what a
cloned knowledge and a cloned FAQ entry are tagged with."""

from __future__ import annotations

from storage.db.errors import AlreadyExistsError
from storage.db.models import KnowledgeBase
from workers.clone.parts import CloneParts


class TagMapper:
    """Source tag id -> the target's tag id, each looked up (or created) once."""

    def __init__(self, ctx: CloneParts, target_kb: KnowledgeBase) -> None:
        self._ctx = ctx
        self._target_kb = target_kb
        self._mapped: dict[str, str | None] = {}

    def target_of(self, source_tag_id: str | None) -> str | None:
        """None for no tag, or a source tag that is gone."""
        if not source_tag_id:
            return None
        if source_tag_id not in self._mapped:
            self._mapped[source_tag_id] = self._find_or_create(source_tag_id)
        return self._mapped[source_tag_id]

    def _find_or_create(self, source_tag_id: str) -> str | None:
        tag = self._ctx.tags.get(source_tag_id, None)
        if tag is None:
            return None
        kb = self._target_kb
        found = self._ctx.tags.named(kb.id, tag.name)
        if found is None:
            try:
                found = self._ctx.tags.create(kb.tenant_id, kb.id, tag.name, tag.color)
            except AlreadyExistsError:  # a parallel clone task created it first
                found = self._ctx.tags.named(kb.id, tag.name)
        return found.id if found is not None else None
