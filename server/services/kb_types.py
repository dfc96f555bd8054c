"""What each type of knowledge base accepts: documents (uploads, URL imports, manual
knowledge) go into document knowledge bases, entries into FAQ ones (whose one knowledge the
FAQ layer makes itself). Either refusal is FAILED_PRECONDITION naming the knowledge base."""

from __future__ import annotations

from core.errors import FailedPrecondition
from core.statuses import KnowledgeBaseType
from storage.db.models import KnowledgeBase

# PreconditionFailure types.
KB_IS_FAQ = "KNOWLEDGE_BASE_IS_FAQ"
KB_NOT_FAQ = "KNOWLEDGE_BASE_NOT_FAQ"


def document_kb(kb: KnowledgeBase) -> KnowledgeBase:
    """``kb`` when documents may go into it."""
    if kb.type == KnowledgeBaseType.FAQ:
        raise FailedPrecondition(
            KB_IS_FAQ,
            kb.id,
            f"knowledge base {kb.id} is an FAQ knowledge base: documents cannot be added to "
            "it; write its entries with FAQService (CreateFAQEntry, ImportFAQEntries)",
        )
    return kb


def faq_kb(kb: KnowledgeBase) -> KnowledgeBase:
    """``kb`` when FAQ entries may go into it."""
    if kb.type != KnowledgeBaseType.FAQ:
        raise FailedPrecondition(
            KB_NOT_FAQ,
            kb.id,
            f"knowledge base {kb.id} is of type {kb.type}: FAQ entries belong to FAQ "
            "knowledge bases",
        )
    return kb
