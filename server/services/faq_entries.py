"""FAQService's entries: create, read, list, update, delete, enable. Every call names an FAQ
knowledge base of the caller's tenant (NOT_FOUND for another tenant's, FAILED_PRECONDITION
for a document one); the writes go through workers.faq.entries, the layer the FAQ import
and clone use too, so all three clean, check and index an entry the same way. A single
create indexes synchronously (the API process embeds, as Search does)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from core.errors import InvalidArgument, NotFound
from core.faq_entry import FaqEntryContent, clean_entry, entry_violations
from server.services.identity import Identity
from server.services.kb_types import faq_kb
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.paging import Listing, requested_page
from storage.db.models import Chunk, KnowledgeBase
from storage.db.repositories.faq_entries import NewFaqEntry
from storage.db.repositories.tags import TagRepository
from workers.faq.entries import (
    FAQ_ENTRY,
    create_entries,
    delete_entries,
    set_entries_enabled,
    update_entry,
)
from workers.faq.parts import FaqWriteParts

MAX_IDS = 1000


class FaqEntryParts(FaqWriteParts, Protocol):
    """The FAQ write layer's parts and the tags an entry's tag must be one of."""

    @property
    def tags(self) -> TagRepository: ...


class FaqEntryService:
    def __init__(self, ctx: FaqEntryParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases

    def create(
        self, identity: Identity, kb_id: str, content: FaqEntryContent, *, enabled: bool = True
    ) -> Chunk:
        kb = self.faq_kb(identity, kb_id)
        cleaned = self._checked(kb, content)
        [chunk] = create_entries(self._ctx, kb, [NewFaqEntry(cleaned, enabled=enabled)])
        return chunk

    def get(self, identity: Identity, kb_id: str, entry_id: str) -> Chunk:
        kb = self.faq_kb(identity, kb_id)
        if not entry_id:
            raise InvalidArgument.field("id", "is required")
        chunk = self._ctx.faq_entries.get(kb.id, entry_id)
        if chunk is None:
            raise NotFound(FAQ_ENTRY, entry_id)
        return chunk

    def list(
        self,
        identity: Identity,
        kb_id: str,
        page_size: int,
        page_token: str,
        *,
        tag_id: str = "",
        enabled: bool | None = None,
    ) -> Listing[Chunk]:
        kb = self.faq_kb(identity, kb_id)
        page = requested_page(page_size, page_token, f"faq_entries:{kb.id}:{tag_id}:{enabled}")
        rows, total = self._ctx.faq_entries.page(
            kb.id, tag_id=tag_id or None, enabled=enabled, offset=page.offset, limit=page.limit
        )
        return Listing(rows, total, page)

    def update(
        self, identity: Identity, kb_id: str, entry_id: str, content: FaqEntryContent
    ) -> Chunk:
        kb = self.faq_kb(identity, kb_id)
        self.get(identity, kb.id, entry_id)
        return update_entry(self._ctx, kb, entry_id, self._checked(kb, content))

    def delete(self, identity: Identity, kb_id: str, ids: Sequence[str]) -> int:
        kb = self.faq_kb(identity, kb_id)
        return len(delete_entries(self._ctx, kb, _checked_ids(ids)))

    def set_enabled(self, identity: Identity, kb_id: str, ids: Sequence[str], enabled: bool) -> int:
        kb = self.faq_kb(identity, kb_id)
        return len(set_entries_enabled(self._ctx, kb, _checked_ids(ids), enabled))

    def faq_kb(self, identity: Identity, kb_id: str) -> KnowledgeBase:
        if not kb_id:
            raise InvalidArgument.field("knowledge_base_id", "is required")
        return faq_kb(self._kbs.get_row(identity, kb_id))

    def _checked(self, kb: KnowledgeBase, content: FaqEntryContent) -> FaqEntryContent:
        cleaned = clean_entry(
            content.standard_question,
            content.similar_questions,
            content.negative_questions,
            content.answers,
            content.answer_strategy,
            content.tag_id,
        )
        violations = entry_violations(cleaned)
        if cleaned.tag_id and not self._ctx.tags.existing(kb.id, [cleaned.tag_id]):
            violations.append(("content.tag_id", f"is not a tag of knowledge base {kb.id}"))
        if violations:
            raise InvalidArgument(violations)
        return cleaned


def _checked_ids(ids: Sequence[str]) -> list[str]:
    if not ids:
        raise InvalidArgument.field("ids", "name at least one entry")
    if len(ids) > MAX_IDS:
        raise InvalidArgument.field("ids", f"has {len(ids)} ids, over {MAX_IDS}")
    return list(dict.fromkeys(ids))
