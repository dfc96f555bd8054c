"""Chunks of one processing round, by chunk type: for products derived after the round's
own chunking (data-table profiles now, LLM enrichment later).

``ChunkRepository.insert_for_attempt`` replaces *every* chunk of a round and only while
it is processing; a derived product arrives later (the round may be completed by then)
and must leave the round's text chunks alone. So this write is scoped to the chunk types
it produces, and guarded like that one: one transaction that locks the knowledge row and
checks the round is still current and in one of the statuses the caller allows.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict

from sqlalchemy import ColumnElement, delete, insert, select

from storage.db.engine import Database
from storage.db.models import Chunk, Knowledge
from storage.db.repositories.chunks import INSERT_BATCH_SIZE, NewChunk
from storage.db.sql import affected_rows


class RoundChunkRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def list_of_types(
        self, knowledge_id: str, attempt: int, chunk_types: Collection[str]
    ) -> list[Chunk]:
        """The round's chunks of ``chunk_types``, by chunk index."""
        query = (
            select(Chunk)
            .where(_round_types(knowledge_id, attempt, chunk_types))
            .order_by(Chunk.chunk_index, Chunk.chunk_type)
        )
        with self._db.session() as session:
            return list(session.scalars(query))

    def replace_of_types(
        self,
        knowledge_id: str,
        attempt: int,
        chunk_types: Collection[str],
        chunks: Sequence[NewChunk],
        *,
        statuses: Collection[str],
    ) -> bool:
        """Replace the round's chunks of ``chunk_types`` with ``chunks`` (all of those
        types), only while the knowledge is at ``attempt`` with a parse status in
        ``statuses``. False, and nothing written, when it is not."""
        stray = {c.chunk_type for c in chunks} - set(chunk_types)
        if stray:
            raise ValueError(f"chunks of types {sorted(stray)} are outside {sorted(chunk_types)}")
        rows = [asdict(chunk) for chunk in chunks]
        guard = (
            select(Knowledge.id)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.attempt == attempt,
                Knowledge.parse_status.in_(list(statuses)),
            )
            .with_for_update()
        )
        with self._db.session() as session:
            if session.scalar(guard) is None:
                return False
            session.execute(delete(Chunk).where(_round_types(knowledge_id, attempt, chunk_types)))
            for start in range(0, len(rows), INSERT_BATCH_SIZE):
                session.execute(insert(Chunk), rows[start : start + INSERT_BATCH_SIZE])
        return True

    def delete_of_types(
        self, knowledge_id: str, attempt: int, chunk_types: Collection[str]
    ) -> int:
        """Remove the round's chunks of ``chunk_types``; other types and rounds stay."""
        with self._db.session() as session:
            statement = delete(Chunk).where(_round_types(knowledge_id, attempt, chunk_types))
            return affected_rows(session.execute(statement))


def _round_types(
    knowledge_id: str, attempt: int, chunk_types: Collection[str]
) -> ColumnElement[bool]:
    return (
        (Chunk.knowledge_id == knowledge_id)
        & (Chunk.attempt == attempt)
        & Chunk.chunk_type.in_(list(chunk_types))
    )
