"""Edits of a knowledge after it was created: its metadata and tags, and its chunks'
content and enabled flags. A metadata or chunk edit runs in one transaction that holds the
knowledge row (the lock a round takes before it writes chunks), so an edit and a round
starting never interleave, and marks the summary stale in that same transaction
(summary_stale); tags are replaced holding the tags they link.

A chunk edit that must change the index too does it inside ``chunk_for_edit``'s block:
when the index write fails, the block raises and the row is rolled back, so the database
and the index keep agreeing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Select, delete, select
from sqlalchemy.orm import Session

from core.statuses import ParseStatus
from storage.db.engine import Database
from storage.db.models import Chunk, Knowledge, KnowledgeTag, Tag, utcnow
from storage.db.repositories import tags
from storage.db.repositories.summary_stale import mark_summary_stale, request_summary_refresh


@dataclass(frozen=True)
class LockedChunk:
    """A chunk and its knowledge, both locked in ``session``'s transaction."""

    session: Session
    chunk: Chunk
    knowledge: Knowledge

    def summary_refresh(self) -> int | None:
        """The knowledge's summary must be refreshed: the refresh's sequence to queue once
        committed (None: no summary to refresh; summary_stale.mark_summary_stale)."""
        return mark_summary_stale(self.session, self.knowledge)

    def children(self, chunk_types: Collection[str]) -> list[Chunk]:
        """The chunk's children of ``chunk_types`` (rows whose parent_chunk_id is it: an
        image's OCR text and caption, its generated questions), locked."""
        return list(
            self.session.scalars(
                select(Chunk)
                .where(
                    Chunk.knowledge_id == self.knowledge.id,
                    Chunk.parent_chunk_id == self.chunk.id,
                    Chunk.chunk_type.in_(list(chunk_types)),
                )
                .order_by(Chunk.id)
                .with_for_update()
            )
        )

    def delete(self, chunks: Sequence[Chunk]) -> None:
        for chunk in chunks:
            self.session.delete(chunk)
        self.session.flush()


@dataclass(frozen=True)
class MetadataUpdate:
    knowledge: Knowledge
    # The summary refresh this change calls for (its sequence), None: none.
    summary_refresh: int | None


@dataclass(frozen=True)
class RefreshRequest:
    knowledge: Knowledge
    # The refresh to queue; None: the knowledge's round is not completed.
    sequence: int | None


class KnowledgeEditRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def update_metadata(
        self, knowledge_id: str, tenant_id: str | None, metadata: Mapping[str, str]
    ) -> MetadataUpdate | None:
        """Replace the metadata (a change bumps ``metadata_version``); None when there is
        no such knowledge of ``tenant_id``'s (None: any tenant's) or it is being deleted."""
        with self._db.session() as session:
            knowledge = session.scalars(
                _visible(
                    select(Knowledge).where(Knowledge.id == knowledge_id), tenant_id
                ).with_for_update()
            ).one_or_none()
            if knowledge is None:
                return None
            if dict(knowledge.meta or {}) == dict(metadata):
                return MetadataUpdate(knowledge, summary_refresh=None)
            knowledge.meta = dict(metadata)
            knowledge.metadata_version += 1
            knowledge.updated_at = utcnow()
            return MetadataUpdate(knowledge, mark_summary_stale(session, knowledge))

    def request_summary_refresh(
        self, knowledge_id: str, tenant_id: str | None
    ) -> RefreshRequest | None:
        """RegenerateSummary's state change (summary → pending) on the locked knowledge;
        None when there is no such knowledge of ``tenant_id``'s or it is being deleted."""
        with self._db.session() as session:
            knowledge = session.scalars(
                _visible(
                    select(Knowledge).where(Knowledge.id == knowledge_id), tenant_id
                ).with_for_update()
            ).one_or_none()
            if knowledge is None:
                return None
            if knowledge.parse_status != ParseStatus.COMPLETED:
                return RefreshRequest(knowledge, None)
            return RefreshRequest(knowledge, request_summary_refresh(session, knowledge))

    def replace_tags(
        self, knowledge_id: str, knowledge_base_id: str, tag_ids: Sequence[str]
    ) -> set[str]:
        """Link the knowledge to exactly ``tag_ids``, each a tag of the knowledge base,
        locked for the transaction so a tag deleted meanwhile cannot be linked; returns
        the ids that are not (none: done; some: nothing changed)."""
        with self._db.session() as session:
            found = (
                set(
                    session.scalars(
                        select(Tag.id)
                        .where(
                            Tag.knowledge_base_id == knowledge_base_id, Tag.id.in_(list(tag_ids))
                        )
                        .with_for_update()
                    )
                )
                if tag_ids
                else set()
            )
            missing = set(tag_ids) - found
            if missing:
                return missing
            session.execute(delete(KnowledgeTag).where(KnowledgeTag.knowledge_id == knowledge_id))
            tags.link(session, knowledge_id, tag_ids)
        return set()

    @contextmanager
    def chunk_for_edit(self, chunk_id: str, tenant_id: str | None) -> Iterator[LockedChunk | None]:
        """The chunk (``tenant_id``'s; None: any tenant's) and its knowledge, locked for the
        block's transaction: committed when the block ends, rolled back if it raises. None
        when there is no such chunk or its knowledge is being deleted."""
        with self._db.session() as session:
            owner = session.scalar(
                select(Chunk.knowledge_id).where(Chunk.id == chunk_id, *_chunk_tenant(tenant_id))
            )
            # The knowledge first, as a round locks it before it touches its chunks.
            knowledge = (
                None
                if owner is None
                else session.scalars(
                    _visible(
                        select(Knowledge).where(Knowledge.id == owner), tenant_id
                    ).with_for_update()
                ).one_or_none()
            )
            chunk = (
                None
                if knowledge is None
                else session.scalars(
                    select(Chunk)
                    .where(Chunk.id == chunk_id, Chunk.knowledge_id == knowledge.id)
                    .with_for_update()
                ).one_or_none()
            )
            if knowledge is None or chunk is None:
                yield None
                return
            yield LockedChunk(session, chunk, knowledge)


def _visible(query: Select[Knowledge], tenant_id: str | None) -> Select[Knowledge]:
    query = query.where(Knowledge.parse_status != ParseStatus.DELETING)
    return query if tenant_id is None else query.where(Knowledge.tenant_id == tenant_id)


def _chunk_tenant(tenant_id: str | None) -> list[ColumnElement[bool]]:
    return [] if tenant_id is None else [Chunk.tenant_id == tenant_id]
