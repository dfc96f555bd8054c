"""The FAQ entries' write layer (workers.faq) as the import's EntryStore: the import's
writes are the layer's own (cleaning, validation, conflicts refused by its unique index,
chunks and index rows together), never a copy of them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from core.faq_entry import AnswerStrategy, FaqEntryContent, clean_entry, entry_violations
from storage.db.models import KnowledgeBase
from storage.db.repositories.faq_entries import NewFaqEntry
from workers.faq.entries import create_entries, delete_entries, reindex_entries, update_entry
from workers.faq.parts import FaqWriteParts
from workers.faq_import.planner import EntryText

_PAGE = 1000


class LayerEntryStore:
    def __init__(self, parts: FaqWriteParts, kb: KnowledgeBase) -> None:
        self._parts = parts
        self._kb = kb

    def entries(self) -> Iterator[tuple[str, EntryText]]:
        offset = 0
        while True:
            page, _ = self._parts.faq_entries.page(self._kb.id, offset=offset, limit=_PAGE)
            for chunk in page:
                yield chunk.id, _text(FaqEntryContent.from_metadata(chunk.meta))
            if len(page) < _PAGE:
                return
            offset += len(page)

    def violations(self, entry: EntryText) -> list[tuple[str, str]]:
        return entry_violations(_content(entry), prefix="")

    def cleaned(self, entry: EntryText) -> EntryText:
        # A strategy the row did not give stays unset: a merge keeps the entry's.
        return replace(_text(_content(entry)), answer_strategy=entry.answer_strategy)

    def create(self, entries: Sequence[tuple[str, EntryText]]) -> None:
        ids = [entry_id for entry_id, _ in entries]
        present = {chunk.id for chunk in self._parts.faq_entries.get_many(self._kb.id, ids)}
        missing = [
            NewFaqEntry(content=_content(entry), id=entry_id)
            for entry_id, entry in entries
            if entry_id not in present
        ]
        if missing:
            # The import's batch is one write (its rows were checked against each other).
            create_entries(self._parts, self._kb, missing, batch_size=len(missing))

    def update(self, entries: Sequence[tuple[str, EntryText]]) -> None:
        for entry_id, entry in entries:
            update_entry(self._parts, self._kb, entry_id, _content(entry))

    def reindex(self, ids: Sequence[str]) -> None:
        reindex_entries(self._parts, self._kb, ids)

    def delete(self, ids: Sequence[str]) -> None:
        delete_entries(self._parts, self._kb, ids)


def _content(entry: EntryText) -> FaqEntryContent:
    return clean_entry(
        entry.standard_question,
        entry.similar_questions,
        entry.negative_questions,
        entry.answers,
        AnswerStrategy(entry.answer_strategy or AnswerStrategy.ALL),
        entry.tag_id or None,
    )


def _text(content: FaqEntryContent) -> EntryText:
    return EntryText(
        standard_question=content.standard_question,
        similar_questions=content.similar_questions,
        negative_questions=content.negative_questions,
        answers=content.answers,
        answer_strategy=str(content.answer_strategy),
        tag_id=content.tag_id or "",
    )
