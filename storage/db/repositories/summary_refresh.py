"""The summary refresh's reads and guarded writes (the task: workers.enrichment.summary_refresh;
what queues it: summary_stale).

A refresh runs on a knowledge whose round is completed: ``begin`` moves its summary pending
→ processing and bumps ``summary_refresh_seq`` (so an edit from now on queues a new task);
``snapshot`` reads what the summary is written from (each text chunk's id, content_revision
and enabled flag, the metadata version); ``write`` stores the new summary and its chunk in
one transaction holding the knowledge, only when the snapshot still holds, and runs the
index write inside it. A snapshot that moved meanwhile is ``CHANGED``: the result is
dropped and the summary stays processing for the newer refresh the edit queued.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy import and_, case, or_, select, update
from sqlalchemy.orm import Session

from core.statuses import ChunkType, ParseStatus, SummaryStatus
from storage.db.engine import Database
from storage.db.models import Chunk, Knowledge, utcnow
from storage.db.repositories.chunks import NewChunk
from storage.db.repositories.summary_stale import OPEN_SUMMARY
from storage.db.sql import affected_rows


@dataclass(frozen=True)
class SourceChunk:
    """What of a text chunk the summary depends on."""

    id: str
    content_revision: int
    is_enabled: bool


@dataclass(frozen=True)
class RefreshSnapshot:
    knowledge: Knowledge
    metadata_version: int
    sources: tuple[SourceChunk, ...]
    # The enabled text chunks' content, in document order: what the model reads.
    texts: tuple[str, ...]
    # The summary chunk as it is (None: none yet), to keep its enabled flag and to put
    # its index row back if the write fails after the index was written.
    summary_chunk: Chunk | None


class RefreshWrite(StrEnum):
    WRITTEN = "written"
    # An input moved since the snapshot: a newer refresh finishes the job.
    CHANGED = "changed"
    # The knowledge was deleted, reparsed, or its summary ended meanwhile.
    GONE = "gone"


class SummaryRefreshRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def begin(self, knowledge_id: str, sequence: int) -> Knowledge | None:
        """The refresh task ``sequence`` starts: pending (or processing: its retry, or the
        result of an older refresh dropped; or failed: an older refresh failed after this
        one was queued) → processing, the sequence bumped past it. None when there is
        nothing for it to do: the knowledge is gone or not completed, its summary was
        written since, or a newer refresh began already."""
        statement = (
            update(Knowledge)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.parse_status == ParseStatus.COMPLETED,
                or_(
                    and_(
                        Knowledge.summary_status.in_(list(OPEN_SUMMARY)),
                        # sequence + 1: this task's own retry (it bumped the sequence).
                        Knowledge.summary_refresh_seq.in_([sequence, sequence + 1]),
                    ),
                    # Queued while an older refresh ran, which then failed.
                    and_(
                        Knowledge.summary_status == SummaryStatus.FAILED,
                        Knowledge.summary_refresh_seq == sequence,
                    ),
                ),
            )
            .values(
                summary_status=SummaryStatus.PROCESSING,
                summary_refresh_seq=case(
                    (Knowledge.summary_refresh_seq == sequence, sequence + 1),
                    else_=Knowledge.summary_refresh_seq,
                ),
                updated_at=utcnow(),
            )
            .returning(Knowledge)
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return session.scalars(statement).one_or_none()

    def snapshot(self, knowledge_id: str) -> RefreshSnapshot | None:
        """The refresh's inputs, read in one transaction; None when the knowledge is gone."""
        with self._db.session() as session:
            knowledge = session.get(Knowledge, knowledge_id)
            if knowledge is None:
                return None
            chunks = _text_chunks(session, knowledge)
            summary = session.scalars(
                select(Chunk).where(
                    Chunk.knowledge_id == knowledge.id,
                    Chunk.attempt == knowledge.attempt,
                    Chunk.chunk_type == ChunkType.SUMMARY,
                )
            ).first()
            return RefreshSnapshot(
                knowledge=knowledge,
                metadata_version=knowledge.metadata_version,
                sources=_sources(chunks),
                texts=tuple(c.content for c in chunks if c.is_enabled),
                summary_chunk=summary,
            )

    def write(
        self,
        snapshot: RefreshSnapshot,
        summary: str,
        row: NewChunk,
        index_write: Callable[[], None],
    ) -> RefreshWrite:
        """``summary`` and its chunk ``row`` stored (processing → completed, no longer
        stale, no error) and ``index_write`` run, in one transaction that holds the
        knowledge and finds the snapshot unchanged; ``index_write`` raising rolls it back."""
        before = snapshot.knowledge
        with self._db.session() as session:
            knowledge = session.scalars(
                select(Knowledge)
                .where(
                    Knowledge.id == before.id,
                    Knowledge.attempt == before.attempt,
                    Knowledge.parse_status == ParseStatus.COMPLETED,
                    Knowledge.summary_status == SummaryStatus.PROCESSING,
                )
                .with_for_update()
            ).one_or_none()
            if knowledge is None:
                return RefreshWrite.GONE
            if (
                knowledge.metadata_version != snapshot.metadata_version
                or _sources(_text_chunks(session, knowledge)) != snapshot.sources
            ):
                return RefreshWrite.CHANGED
            _put_summary_chunk(session, row)
            knowledge.summary = summary
            knowledge.summary_status = SummaryStatus.COMPLETED
            knowledge.summary_stale = False
            knowledge.summary_error = None
            knowledge.updated_at = utcnow()
            session.flush()
            index_write()
        return RefreshWrite.WRITTEN

    def fail(self, knowledge_id: str, sequence: int, error: str) -> bool:
        """The refresh ``sequence`` failed for good: processing (or pending) → failed with
        why, unless a newer refresh began; the summary written last stays (summary_stale
        says whether it is out of date). A refresh queued meanwhile still runs (begin)."""
        statement = (
            update(Knowledge)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.parse_status == ParseStatus.COMPLETED,
                Knowledge.summary_status.in_(list(OPEN_SUMMARY)),
                Knowledge.summary_refresh_seq.in_([sequence, sequence + 1]),
            )
            .values(summary_status=SummaryStatus.FAILED, summary_error=error, updated_at=utcnow())
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0


def _text_chunks(session: Session, knowledge: Knowledge) -> Sequence[Chunk]:
    return session.scalars(
        select(Chunk)
        .where(
            Chunk.knowledge_id == knowledge.id,
            Chunk.attempt == knowledge.attempt,
            Chunk.chunk_type == ChunkType.TEXT,
        )
        .order_by(Chunk.chunk_index)
    ).all()


def _sources(chunks: Sequence[Chunk]) -> tuple[SourceChunk, ...]:
    return tuple(SourceChunk(c.id, c.content_revision, c.is_enabled) for c in chunks)


def _put_summary_chunk(session: Session, row: NewChunk) -> None:
    existing = session.get(Chunk, row.id)
    if existing is None:
        session.add(
            Chunk(
                id=row.id,
                tenant_id=row.tenant_id,
                knowledge_base_id=row.knowledge_base_id,
                knowledge_id=row.knowledge_id,
                attempt=row.attempt,
                chunk_index=row.chunk_index,
                chunk_type=row.chunk_type,
                content=row.content,
                is_enabled=row.is_enabled,
            )
        )
        return
    existing.content = row.content
    existing.updated_at = utcnow()
