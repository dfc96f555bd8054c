"""Tags named in an import file, found by name in the knowledge base, or created (not in a
dry run, which writes nothing: a name it would create stands for itself)."""

from __future__ import annotations

from storage.db.errors import AlreadyExistsError
from storage.db.repositories.tags import TagRepository

NEW_TAG_COLOR = ""


class TagNames:
    def __init__(
        self, tags: TagRepository, tenant_id: str, knowledge_base_id: str, *, create: bool
    ) -> None:
        self._tags = tags
        self._tenant_id = tenant_id
        self._kb_id = knowledge_base_id
        self._create = create
        self._ids: dict[str, str] = {}

    def id_of(self, name: str) -> str:
        if name not in self._ids:
            self._ids[name] = self._find_or_create(name)
        return self._ids[name]

    def _find_or_create(self, name: str) -> str:
        tag = self._tags.named(self._kb_id, name)
        if tag is not None:
            return tag.id
        if not self._create:
            return f"tag:{name}"
        try:
            return self._tags.create(self._tenant_id, self._kb_id, name, NEW_TAG_COLOR).id
        except AlreadyExistsError:
            # Created meanwhile (by a user, or by this import's crashed attempt).
            tag = self._tags.named(self._kb_id, name)
            if tag is None:
                raise
            return tag.id
