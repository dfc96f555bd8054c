"""Writing FAQ entries with their index rows: the one layer single creates (the API), imports
and clones (the workers) call.

Each write keeps the database and the index together: rows are embedded before anything is
written (a model that is down changes nothing), the entries' chunks are written in one
transaction, then their index rows; when the index write fails the chunks are removed again
(an update puts the old content back), so no entry is left half-written and no index row
outlives its chunk. Duplicates: a standard or similar question (normalised) that is already
another entry's is AlreadyExists naming that entry; the database's unique index on those
questions refuses one a concurrent write stored meanwhile, reported the same way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError

from core.errors import AlreadyExists, NotFound
from core.faq_entry import FaqEntryContent, QuestionKind, faq_index_modes
from storage.db.models import Chunk, Knowledge, KnowledgeBase
from storage.db.repositories.faq_entries import NewFaqEntry
from workers.faq.index_rows import FaqRowWriter, IndexedEntry, row_texts
from workers.faq.parts import FaqWriteParts

FAQ_ENTRY = "sluice.v1.FAQEntry"
# Entries per database transaction and per embedding call of create_entries.
DEFAULT_BATCH_SIZE = 100


@dataclass(frozen=True)
class QuestionConflict:
    """Entry ``position`` of a write asks ``text`` (normalised), which entry ``existing_id``
    (stored, or an earlier one of the same write) asks already."""

    position: int
    text: str
    existing_id: str


def ensure_faq_knowledge(parts: FaqWriteParts, kb: KnowledgeBase) -> Knowledge:
    """The FAQ knowledge base's one knowledge, created on first use (race-safe)."""
    return parts.faq_entries.ensure_faq_knowledge(kb.tenant_id, kb.id)


def find_conflicts(
    parts: FaqWriteParts,
    kb: KnowledgeBase,
    entries: Sequence[FaqEntryContent],
    *,
    exclude_chunk_id: str | None = None,
) -> list[QuestionConflict]:
    """Every standard or similar question of ``entries`` already asked by a stored entry
    (other than ``exclude_chunk_id``) or by an earlier entry of ``entries``."""
    asked = [[text for kind, text in e.asked() if kind != QuestionKind.NEGATIVE] for e in entries]
    stored = parts.faq_entries.conflicts(
        kb.id, {t for texts in asked for t in texts}, exclude_chunk_id=exclude_chunk_id
    )
    out: list[QuestionConflict] = []
    earlier: dict[str, str] = {}
    for position, texts in enumerate(asked):
        for text in texts:
            holder = stored.get(text) or earlier.get(text)
            if holder is not None:
                out.append(QuestionConflict(position, text, holder))
        for text in texts:
            earlier.setdefault(text, f"#{position}")
    return out


def create_entries(
    parts: FaqWriteParts,
    kb: KnowledgeBase,
    entries: Sequence[NewFaqEntry],
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> list[Chunk]:
    """Store and index ``entries`` (cleaned and valid), ``batch_size`` per transaction and
    embedding call; each batch is all or nothing. AlreadyExists on the first duplicate
    question (nothing of its batch written; earlier batches stay)."""
    knowledge = ensure_faq_knowledge(parts, kb)
    writer = FaqRowWriter(parts, kb)
    modes = faq_index_modes(kb.config or {})
    created: list[Chunk] = []
    for first in range(0, len(entries), batch_size):
        batch = entries[first : first + batch_size]
        _refuse_conflicts(parts, kb, [e.content for e in batch])
        indexed = [IndexedEntry(e.id, knowledge.id, e.content, e.enabled) for e in batch]
        rows = writer.rows(
            indexed, [t for e in indexed for t in row_texts(e.chunk_id, e.content, modes)]
        )
        try:
            chunks = parts.faq_entries.insert(knowledge, batch)
        except IntegrityError as exc:
            _refuse_conflicts(parts, kb, [e.content for e in batch])
            raise exc
        try:
            writer.upsert(rows)
        except Exception:
            ids = [e.id for e in batch]
            parts.faq_entries.delete(kb.id, ids)
            writer.delete_chunks(ids)
            raise
        created += chunks
    return created


def update_entry(
    parts: FaqWriteParts, kb: KnowledgeBase, chunk_id: str, content: FaqEntryContent
) -> Chunk:
    """The entry with ``content`` (cleaned and valid). Only rows whose text changed are
    embedded and written again (in separate mode: the changed similar questions), rows it
    no longer has are removed. NotFound when the entry is not the knowledge base's."""
    before = parts.faq_entries.get(kb.id, chunk_id)
    if before is None:
        raise NotFound(FAQ_ENTRY, chunk_id)
    _refuse_conflicts(parts, kb, [content], exclude_chunk_id=chunk_id)
    modes = faq_index_modes(kb.config or {})
    old_content = FaqEntryContent.from_metadata(before.meta)
    old = {t.id: t for t in row_texts(chunk_id, old_content, modes)}
    new = row_texts(chunk_id, content, modes)
    changed = [t for t in new if t.id not in old or old[t.id].text != t.text]
    gone = [row_id for row_id in old if row_id not in {t.id for t in new}]
    writer = FaqRowWriter(parts, kb)
    entry = IndexedEntry(chunk_id, before.knowledge_id, content, before.is_enabled)
    rows = writer.rows([entry], changed)
    try:
        after = parts.faq_entries.replace_content(chunk_id, content)
    except IntegrityError:
        _refuse_conflicts(parts, kb, [content], exclude_chunk_id=chunk_id)
        raise
    if after is None:
        raise NotFound(FAQ_ENTRY, chunk_id)
    try:
        writer.upsert(rows)
        writer.delete_rows(gone)
    except Exception:
        # The old content back, and its rows (re-embedded: the index may hold either).
        parts.faq_entries.replace_content(chunk_id, old_content)
        writer.delete_chunks([chunk_id])
        restored = IndexedEntry(chunk_id, before.knowledge_id, old_content, before.is_enabled)
        writer.upsert(writer.rows([restored], list(old.values())))
        raise
    return after


def reindex_entries(parts: FaqWriteParts, kb: KnowledgeBase, chunk_ids: Sequence[str]) -> None:
    """Write the stored entries' index rows again from their stored content: a retry's repair
    of a write killed between its database write and its index write (which leaves an entry
    that search never finds, or finds by its old text). Rows are upserted by row id, so
    none is doubled; rows an entry no longer has (an update's dropped similar questions)
    are removed. Ids that are not the knowledge base's entries are ignored."""
    chunks = parts.faq_entries.get_many(kb.id, chunk_ids)
    if not chunks:
        return
    modes = faq_index_modes(kb.config or {})
    indexed = [
        IndexedEntry(c.id, c.knowledge_id, FaqEntryContent.from_metadata(c.meta), c.is_enabled)
        for c in chunks
    ]
    texts = [t for e in indexed for t in row_texts(e.chunk_id, e.content, modes)]
    writer = FaqRowWriter(parts, kb)
    writer.upsert(writer.rows(indexed, texts))
    kept = {t.id for t in texts}
    stored = parts.index.ids_for_chunks(kb.embedding_model_key, [e.chunk_id for e in indexed])
    writer.delete_rows([row_id for row_id in stored if row_id not in kept])


def delete_entries(parts: FaqWriteParts, kb: KnowledgeBase, chunk_ids: Sequence[str]) -> list[str]:
    """Remove the entries and all their index rows; the ids that were the knowledge base's
    entries (others are ignored)."""
    deleted = parts.faq_entries.delete(kb.id, chunk_ids)
    FaqRowWriter(parts, kb).delete_chunks(deleted)
    return deleted


def delete_all(parts: FaqWriteParts, kb: KnowledgeBase, *, batch_size: int = 1000) -> int:
    """Remove every entry of the knowledge base (an import's replace), in batches."""
    ids = parts.faq_entries.ids(kb.id)
    for first in range(0, len(ids), batch_size):
        delete_entries(parts, kb, ids[first : first + batch_size])
    return len(ids)


def set_entries_enabled(
    parts: FaqWriteParts, kb: KnowledgeBase, chunk_ids: Sequence[str], enabled: bool
) -> list[str]:
    """Enable or disable entries (the chunk and all its index rows); the ids that changed.
    When the index cannot be written the flags are put back."""
    changed = parts.faq_entries.set_enabled(kb.id, chunk_ids, enabled)
    try:
        parts.index.set_enabled(kb.embedding_model_key, changed, enabled)
    except Exception:
        parts.faq_entries.set_enabled(kb.id, changed, not enabled)
        raise
    return changed


def _refuse_conflicts(
    parts: FaqWriteParts,
    kb: KnowledgeBase,
    entries: Sequence[FaqEntryContent],
    *,
    exclude_chunk_id: str | None = None,
) -> None:
    conflicts = find_conflicts(parts, kb, entries, exclude_chunk_id=exclude_chunk_id)
    if conflicts:
        first = conflicts[0]
        raise AlreadyExists(
            FAQ_ENTRY,
            first.existing_id,
            f"question {first.text!r} is already asked by FAQ entry {first.existing_id}",
        )
