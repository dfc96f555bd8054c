"""An FAQ entry's index rows, by the knowledge base's FAQ index modes (core.faq_entry):

- combined: one row (id = the chunk's id) holding the standard and similar questions;
- separate: a row for the standard question (id = the chunk's id) and one per similar
  question, id ``{chunk_id}-{i}`` (i from 1, in the entry's order);
- question_answer adds the answers' text to the chunk's own row (so an answer's words find
  the entry), question_only leaves them out. Negative questions are never indexed.

Every row's chunk_id is the entry's chunk, so deleting, enabling and search's one-result-per-
chunk work on an entry as on any chunk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.effective_config import embedding_model_of, resolve
from core.faq_entry import FaqEntryContent, FaqIndexMode, FaqIndexModes, FaqQuestionIndexMode
from core.index_sides import index_sides
from storage.db.models import KnowledgeBase
from storage.index.records import IndexRow
from workers.faq.parts import FaqWriteParts
from workers.pipeline.chunks.indexing import CHUNK_SOURCE

# The source type of a separate similar question's row.
FAQ_QUESTION_SOURCE = "faq_question"


@dataclass(frozen=True)
class FaqRowText:
    """What one index row of an entry holds, before it is embedded."""

    id: str
    chunk_id: str
    source_type: str
    text: str


@dataclass(frozen=True)
class IndexedEntry:
    """An entry to write rows for: its chunk id, content, knowledge and enabled flag."""

    chunk_id: str
    knowledge_id: str
    content: FaqEntryContent
    enabled: bool


def row_texts(chunk_id: str, content: FaqEntryContent, modes: FaqIndexModes) -> list[FaqRowText]:
    answers = list(content.answers) if modes.content == FaqIndexMode.QUESTION_ANSWER else []
    if modes.questions == FaqQuestionIndexMode.COMBINED:
        text = "\n".join([content.standard_question, *content.similar_questions, *answers])
        return [FaqRowText(chunk_id, chunk_id, CHUNK_SOURCE, text)]
    own = FaqRowText(
        chunk_id, chunk_id, CHUNK_SOURCE, "\n".join([content.standard_question, *answers])
    )
    return [own] + [
        FaqRowText(f"{chunk_id}-{i}", chunk_id, FAQ_QUESTION_SOURCE, question)
        for i, question in enumerate(content.similar_questions, start=1)
    ]


class FaqRowWriter:
    """Embeds entries' row texts with the knowledge base's model (one call per batch) and
    upserts them into its collection; nothing for a knowledge base that indexes nothing."""

    def __init__(self, parts: FaqWriteParts, kb: KnowledgeBase) -> None:
        self._parts = parts
        self._kb = kb
        config = resolve(kb.config or {}, None)
        self._sides = index_sides(kb.embedding_model_key, config)
        self._model = embedding_model_of(kb.config or {})

    def rows(self, entries: Sequence[IndexedEntry], texts: Sequence[FaqRowText]) -> list[IndexRow]:
        """``texts`` (rows of ``entries``) embedded, as index rows."""
        by_chunk = {e.chunk_id: e for e in entries}
        vectors: Sequence[Sequence[float]] = (
            self._parts.embedders.get(self._model).embed_documents([t.text for t in texts])
            if self._sides.dense and texts
            else [()] * len(texts)
        )
        return [
            IndexRow(
                id=t.id,
                tenant_id=self._kb.tenant_id,
                knowledge_base_id=self._kb.id,
                knowledge_id=by_chunk[t.chunk_id].knowledge_id,
                chunk_id=t.chunk_id,
                source_type=t.source_type,
                is_enabled=by_chunk[t.chunk_id].enabled,
                content=t.text,
                keyword_text=t.text,
                vector=vector,
                keyword_indexed=self._sides.keyword,
            )
            for t, vector in zip(texts, vectors, strict=True)
        ]

    def upsert(self, rows: Sequence[IndexRow]) -> None:
        self._parts.index.upsert(self._kb.embedding_model_key, rows)

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        self._parts.index.delete_by_chunk_ids(self._kb.embedding_model_key, chunk_ids)

    def delete_rows(self, row_ids: Sequence[str]) -> None:
        self._parts.index.delete_by_ids(self._kb.embedding_model_key, row_ids)
