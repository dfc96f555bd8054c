"""Index checkpoints: a round's parse fingerprint and how many of its text chunks are
indexed, advanced after every batch whose index write succeeded.

A try of a round that finds a checkpoint with its own fingerprint keeps the chunks and index
rows already written and goes on from ``indexed_count``; one left by an older round of the
same knowledge (housekeeping requeued it) is taken over, its text chunks moved to the new
round, so neither is embedded twice. Any other fingerprint means another parse: no resume.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, delete, select, update

from core.statuses import ChunkType, ParseStatus
from storage.db.engine import Database
from storage.db.models import Chunk, IndexCheckpoint, Knowledge, utcnow
from storage.db.sql import affected_rows


@dataclass(frozen=True)
class ResumePoint:
    """Where a round goes on: its text chunks' ids in document order, how many of them are
    indexed, and the round that wrote them (older than the resuming one after a requeue)."""

    chunk_ids: tuple[str, ...]
    indexed_count: int
    from_attempt: int


class IndexCheckpointRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def resume(
        self, knowledge_id: str, attempt: int, fingerprint: str, chunk_count: int
    ) -> ResumePoint | None:
        """The resume point of round ``attempt`` for the parse ``fingerprint``, or None to
        start over. In one transaction holding the knowledge row (still at ``attempt`` and
        processing): a checkpoint of an older round with the same parse is taken over, its
        text (and parent) chunks moved to ``attempt``."""
        guard = (
            select(Knowledge.id)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.attempt == attempt,
                Knowledge.parse_status == ParseStatus.PROCESSING,
            )
            .with_for_update()
        )
        with self._db.session() as session:
            if session.scalar(guard) is None:
                return None
            checkpoint = session.get(IndexCheckpoint, knowledge_id)
            if (
                checkpoint is None
                or checkpoint.fingerprint != fingerprint
                or checkpoint.chunk_count != chunk_count
                or checkpoint.attempt > attempt
            ):
                return None
            texts = (Chunk.knowledge_id == knowledge_id) & (Chunk.chunk_type == ChunkType.TEXT)
            ids = tuple(
                session.scalars(
                    select(Chunk.id)
                    .where(texts, Chunk.attempt == checkpoint.attempt)
                    .order_by(Chunk.chunk_index)
                )
            )
            if len(ids) != chunk_count:
                return None
            from_attempt = checkpoint.attempt
            if from_attempt != attempt:
                # The parse's parent chunks (parent/child chunking) go with their children.
                parsed = (Chunk.knowledge_id == knowledge_id) & Chunk.chunk_type.in_(
                    [ChunkType.TEXT, ChunkType.PARENT_TEXT]
                )
                session.execute(
                    update(Chunk)
                    .where(parsed, Chunk.attempt == from_attempt)
                    .values(attempt=attempt, updated_at=utcnow())
                    .execution_options(synchronize_session=False)
                )
                checkpoint.attempt = attempt
                checkpoint.updated_at = utcnow()
            return ResumePoint(ids, min(checkpoint.indexed_count, chunk_count), from_attempt)

    def start(self, knowledge_id: str, attempt: int, fingerprint: str, chunk_count: int) -> None:
        """Round ``attempt`` wrote the ``chunk_count`` chunks of parse ``fingerprint``;
        nothing is indexed yet."""
        with self._db.session() as session:
            session.execute(delete(IndexCheckpoint).where(_of(knowledge_id)))
            session.add(
                IndexCheckpoint(
                    knowledge_id=knowledge_id,
                    attempt=attempt,
                    fingerprint=fingerprint,
                    chunk_count=chunk_count,
                    indexed_count=0,
                    updated_at=utcnow(),
                )
            )

    def advance(self, knowledge_id: str, attempt: int, fingerprint: str, indexed: int) -> bool:
        """The first ``indexed`` chunks are in the index. Never moves backwards (a stopping
        try and its successor may both report), and only for the same round and parse."""
        statement = (
            update(IndexCheckpoint)
            .where(
                _of(knowledge_id),
                IndexCheckpoint.attempt == attempt,
                IndexCheckpoint.fingerprint == fingerprint,
                IndexCheckpoint.indexed_count < indexed,
            )
            .values(indexed_count=indexed, updated_at=utcnow())
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0

    def get(self, knowledge_id: str) -> IndexCheckpoint | None:
        with self._db.session() as session:
            return session.get(IndexCheckpoint, knowledge_id)

    def delete(self, knowledge_id: str, attempt: int, *, and_older: bool = False) -> int:
        """Forget the checkpoint of round ``attempt`` (with ``and_older``: of any round up
        to it); a newer round's stays."""
        rounds = (
            IndexCheckpoint.attempt <= attempt if and_older else IndexCheckpoint.attempt == attempt
        )
        with self._db.session() as session:
            statement = delete(IndexCheckpoint).where(_of(knowledge_id), rounds)
            return affected_rows(session.execute(statement))


def _of(knowledge_id: str) -> ColumnElement[bool]:
    return IndexCheckpoint.knowledge_id == knowledge_id
