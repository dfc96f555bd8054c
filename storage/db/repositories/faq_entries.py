"""FAQ entries: the chunks of type faq of an FAQ knowledge base's one knowledge, with their
normalised questions (faq_questions), written and removed together in one transaction.

The knowledge of an FAQ knowledge base is created on first use; a partial unique index on
knowledges keeps it one even when two first uses race. Each entry write first updates the
knowledge row, which takes its row lock (PostgreSQL) or the write lock (SQLite), so entries
written concurrently get distinct chunk indexes; the unique index on the standard and
similar questions refuses a question another write stored meanwhile (IntegrityError)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.faq_entry import FaqEntryContent, QuestionKind
from core.statuses import ChunkType, EnableStatus, KnowledgeType, ParseStatus
from storage.db.engine import Database
from storage.db.models import Chunk, FaqQuestion, Knowledge, new_id, utcnow

FAQ_KNOWLEDGE_TITLE = "FAQ"


@dataclass(frozen=True)
class NewFaqEntry:
    content: FaqEntryContent
    enabled: bool = True
    id: str = field(default_factory=new_id)


@dataclass(frozen=True)
class EntryState:
    """What of an entry a clone syncs onto a matching one (same content hash)."""

    chunk_id: str
    enabled: bool
    tag_id: str | None
    answer_strategy: str


class FaqEntryRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def faq_knowledge(self, knowledge_base_id: str) -> Knowledge | None:
        with self._db.session() as session:
            return _faq_knowledge(session, knowledge_base_id)

    def ensure_faq_knowledge(self, tenant_id: str, knowledge_base_id: str) -> Knowledge:
        """The knowledge base's one FAQ knowledge, created (completed, enabled) if missing."""
        found = self.faq_knowledge(knowledge_base_id)
        if found is not None:
            return found
        try:
            with self._db.session() as session:
                knowledge = Knowledge(
                    tenant_id=tenant_id,
                    knowledge_base_id=knowledge_base_id,
                    type=KnowledgeType.FAQ,
                    title=FAQ_KNOWLEDGE_TITLE,
                    parse_status=ParseStatus.COMPLETED,
                    enable_status=EnableStatus.ENABLED,
                )
                session.add(knowledge)
                session.flush()
                return knowledge
        except IntegrityError:
            # Another first use won the race: its knowledge is the one.
            again = self.faq_knowledge(knowledge_base_id)
            if again is None:
                raise
            return again

    def insert(self, knowledge: Knowledge, entries: Sequence[NewFaqEntry]) -> list[Chunk]:
        """All or nothing, in one transaction. IntegrityError when a standard or similar
        question is already another entry's (check ``conflicts`` first; this is the race)."""
        if not entries:
            return []
        with self._db.session() as session:
            _lock(session, knowledge.id)
            last = session.scalar(
                select(func.max(Chunk.chunk_index)).where(
                    Chunk.knowledge_id == knowledge.id, Chunk.chunk_type == ChunkType.FAQ
                )
            )
            start = -1 if last is None else last
            chunks = [
                Chunk(
                    id=entry.id,
                    tenant_id=knowledge.tenant_id,
                    knowledge_base_id=knowledge.knowledge_base_id,
                    knowledge_id=knowledge.id,
                    chunk_index=start + 1 + i,
                    chunk_type=ChunkType.FAQ,
                    content=entry.content.standard_question,
                    is_enabled=entry.enabled,
                    meta=entry.content.as_metadata(),
                    content_hash=entry.content.content_hash,
                    tag_id=entry.content.tag_id,
                )
                for i, entry in enumerate(entries)
            ]
            session.add_all(chunks)
            session.flush()
            kb_id = knowledge.knowledge_base_id
            _add_questions(
                session, [q for e in entries for q in _questions(kb_id, e.id, e.content)]
            )
            return chunks

    def replace_content(self, chunk_id: str, content: FaqEntryContent) -> Chunk | None:
        """The entry with ``content`` (its questions rewritten); None when it is gone."""
        with self._db.session() as session:
            chunk = session.get(Chunk, chunk_id, with_for_update=True)
            if chunk is None or chunk.chunk_type != ChunkType.FAQ:
                return None
            session.execute(delete(FaqQuestion).where(FaqQuestion.chunk_id == chunk_id))
            session.flush()
            chunk.content = content.standard_question
            chunk.meta = content.as_metadata()
            chunk.content_hash = content.content_hash
            chunk.tag_id = content.tag_id
            chunk.content_revision += 1
            chunk.updated_at = utcnow()
            session.flush()
            _add_questions(session, _questions(chunk.knowledge_base_id, chunk_id, content))
            return chunk

    def get(self, knowledge_base_id: str, chunk_id: str) -> Chunk | None:
        with self._db.session() as session:
            chunk = session.get(Chunk, chunk_id)
            return chunk if chunk is not None and _is_entry_of(chunk, knowledge_base_id) else None

    def get_many(self, knowledge_base_id: str, chunk_ids: Collection[str]) -> list[Chunk]:
        if not chunk_ids:
            return []
        with self._db.session() as session:
            return list(
                session.scalars(
                    select(Chunk).where(
                        Chunk.id.in_(list(chunk_ids)), *_entries_of(knowledge_base_id)
                    )
                )
            )

    def page(
        self,
        knowledge_base_id: str,
        *,
        tag_id: str | None = None,
        enabled: bool | None = None,
        offset: int = 0,
        limit: int = 100,
    ) -> tuple[list[Chunk], int]:
        """A page of entries in creation order, and how many match in all."""
        where = [*_entries_of(knowledge_base_id)]
        if tag_id:
            where.append(Chunk.tag_id == tag_id)
        if enabled is not None:
            where.append(Chunk.is_enabled == enabled)
        with self._db.session() as session:
            total = session.scalar(select(func.count()).select_from(Chunk).where(*where)) or 0
            rows = session.scalars(
                select(Chunk).where(*where).order_by(Chunk.chunk_index).offset(offset).limit(limit)
            )
            return list(rows), total

    def ids(self, knowledge_base_id: str) -> list[str]:
        with self._db.session() as session:
            return list(session.scalars(select(Chunk.id).where(*_entries_of(knowledge_base_id))))

    def conflicts(
        self,
        knowledge_base_id: str,
        texts: Collection[str],
        *,
        kinds: Collection[QuestionKind] = (QuestionKind.STANDARD, QuestionKind.SIMILAR),
        exclude_chunk_id: str | None = None,
    ) -> dict[str, str]:
        """Normalised text → the id of the entry holding it as one of ``kinds``."""
        if not texts:
            return {}
        query = select(FaqQuestion.text, FaqQuestion.chunk_id).where(
            FaqQuestion.knowledge_base_id == knowledge_base_id,
            FaqQuestion.text.in_(list(texts)),
            FaqQuestion.kind.in_([str(k) for k in kinds]),
        )
        if exclude_chunk_id is not None:
            query = query.where(FaqQuestion.chunk_id != exclude_chunk_id)
        with self._db.session() as session:
            return {text: chunk_id for text, chunk_id in session.execute(query)}

    def by_content_hash(self, knowledge_base_id: str, hashes: Collection[str]) -> dict[str, Chunk]:
        """Content hash → the entry with it (questions are unique, so at most one each)."""
        if not hashes:
            return {}
        with self._db.session() as session:
            rows = session.scalars(
                select(Chunk).where(
                    Chunk.content_hash.in_(list(hashes)), *_entries_of(knowledge_base_id)
                )
            )
            return {chunk.content_hash: chunk for chunk in rows}

    def content_hashes(self, knowledge_base_id: str) -> dict[str, str]:
        """Content hash → entry id of every entry, in creation order."""
        query = (
            select(Chunk.content_hash, Chunk.id)
            .where(*_entries_of(knowledge_base_id))
            .order_by(Chunk.chunk_index)
        )
        with self._db.session() as session:
            return {content_hash: chunk_id for content_hash, chunk_id in session.execute(query)}

    def sync_state(self, knowledge_base_id: str, states: Sequence[EntryState]) -> None:
        """Each entry set to its state (enabled flag, tag, answer strategy); the caller has
        written the enabled flags into the index first, so a retry still finds them to do."""
        by_id = {state.chunk_id: state for state in states}
        if not by_id:
            return
        with self._db.session() as session:
            rows = session.scalars(
                select(Chunk)
                .where(Chunk.id.in_(list(by_id)), *_entries_of(knowledge_base_id))
                .with_for_update()
            )
            for chunk in rows:
                state = by_id[chunk.id]
                meta = {
                    **chunk.meta,
                    "answer_strategy": state.answer_strategy,
                    "tag_id": state.tag_id or "",
                }
                if (chunk.is_enabled, chunk.tag_id, chunk.meta) != (
                    state.enabled,
                    state.tag_id,
                    meta,
                ):
                    chunk.is_enabled = state.enabled
                    chunk.tag_id = state.tag_id
                    chunk.meta = meta
                    chunk.updated_at = utcnow()

    def delete(self, knowledge_base_id: str, chunk_ids: Collection[str]) -> list[str]:
        """Remove the entries (and their questions); the ids that were there."""
        if not chunk_ids:
            return []
        with self._db.session() as session:
            found = list(
                session.scalars(
                    select(Chunk.id).where(
                        Chunk.id.in_(list(chunk_ids)), *_entries_of(knowledge_base_id)
                    )
                )
            )
            if found:
                session.execute(delete(FaqQuestion).where(FaqQuestion.chunk_id.in_(found)))
                session.execute(delete(Chunk).where(Chunk.id.in_(found)))
            return found

    def set_enabled(
        self, knowledge_base_id: str, chunk_ids: Collection[str], enabled: bool
    ) -> list[str]:
        """The ids among ``chunk_ids`` whose flag changed to ``enabled``."""
        if not chunk_ids:
            return []
        with self._db.session() as session:
            changed = list(
                session.scalars(
                    select(Chunk.id).where(
                        Chunk.id.in_(list(chunk_ids)),
                        Chunk.is_enabled != enabled,
                        *_entries_of(knowledge_base_id),
                    )
                )
            )
            if changed:
                session.execute(
                    update(Chunk)
                    .where(Chunk.id.in_(changed))
                    .values(is_enabled=enabled, updated_at=utcnow())
                )
            return changed


def _faq_knowledge(session: Session, knowledge_base_id: str) -> Knowledge | None:
    return session.scalar(
        select(Knowledge).where(
            Knowledge.knowledge_base_id == knowledge_base_id, Knowledge.type == KnowledgeType.FAQ
        )
    )


def _lock(session: Session, knowledge_id: str) -> None:
    session.execute(
        update(Knowledge).where(Knowledge.id == knowledge_id).values(updated_at=utcnow())
    )


def _entries_of(knowledge_base_id: str) -> list[ColumnElement[bool]]:
    return [Chunk.knowledge_base_id == knowledge_base_id, Chunk.chunk_type == ChunkType.FAQ]


def _is_entry_of(chunk: Chunk, knowledge_base_id: str) -> bool:
    return chunk.knowledge_base_id == knowledge_base_id and chunk.chunk_type == ChunkType.FAQ


def _questions(
    knowledge_base_id: str, chunk_id: str, content: FaqEntryContent
) -> list[dict[str, str]]:
    return [
        {"chunk_id": chunk_id, "knowledge_base_id": knowledge_base_id, "kind": kind, "text": text}
        for kind, text in content.asked()
    ]


def _add_questions(session: Session, questions: list[dict[str, str]]) -> None:
    # One bulk INSERT of plain rows: building an ORM object per question cost more than the
    # insert itself in an import's batch.
    if questions:
        session.execute(insert(FaqQuestion), questions)
