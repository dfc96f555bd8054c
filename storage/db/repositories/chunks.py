"""Chunk rows: bulk writes per knowledge, paging and lookups.

Each chunk carries the processing round (attempt) that wrote it. Writes of a round go
through ``insert_for_attempt`` (products derived later, like table profiles, through
``replace_of_types``), which hold the knowledge row while they write, so a round that was
superseded, cancelled or deleted can never add rows; removals name the rounds
they clear, so clearing an old round never touches a newer one.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, delete, func, insert, select
from sqlalchemy.orm import Session

from core.statuses import ChunkType, ParseStatus
from storage.db.engine import Database
from storage.db.models import Chunk, Knowledge, new_id
from storage.db.sql import affected_rows

INSERT_BATCH_SIZE = 500


@dataclass(frozen=True, slots=True)
class NewChunk:
    """A chunk to insert. Ids are assigned up front so neighbours can link to each other."""

    tenant_id: str
    knowledge_base_id: str
    knowledge_id: str
    chunk_index: int
    content: str
    chunk_type: str = ChunkType.TEXT
    attempt: int = 0
    context_header: str = ""
    start_at: int = 0
    end_at: int = 0
    parent_chunk_id: str | None = None
    pre_chunk_id: str | None = None
    next_chunk_id: str | None = None
    is_enabled: bool = True
    image_info: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    content_hash: str = ""
    id: str = field(default_factory=new_id)


class ChunkRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def insert_many(self, chunks: Sequence[NewChunk]) -> None:
        """All or nothing: one transaction, sent in batches. A chunk already stored for the
        same (knowledge, type, index) makes the whole call fail with IntegrityError."""
        rows = [asdict(chunk) for chunk in chunks]
        if not rows:
            return
        with self._db.session() as session:
            for start in range(0, len(rows), INSERT_BATCH_SIZE):
                session.execute(insert(Chunk), rows[start : start + INSERT_BATCH_SIZE])

    def insert_for_attempt(
        self, knowledge_id: str, attempt: int, chunks: Sequence[NewChunk]
    ) -> bool:
        """Replace the chunks of round ``attempt`` with ``chunks``, in one transaction that
        first locks the knowledge row and checks that the round is still current and
        processing. False (and nothing written) when it is not: a newer attempt, a cancel
        or a delete took the knowledge over."""
        return self._replace_guarded(
            knowledge_id,
            attempt,
            (ParseStatus.PROCESSING,),
            _rounds(knowledge_id, attempt, and_older=False),
            chunks,
        )

    def replace_of_types(
        self,
        knowledge_id: str,
        attempt: int,
        chunk_types: Collection[str],
        chunks: Sequence[NewChunk],
        *,
        statuses: Collection[str],
    ) -> bool:
        """Replace only the round's chunks of ``chunk_types`` (products derived after the
        round's chunking, which may already be completed), while the knowledge is at
        ``attempt`` with a parse status in ``statuses``; the round's other chunks stay."""
        stray = {c.chunk_type for c in chunks} - set(chunk_types)
        if stray:
            raise ValueError(f"chunks of types {sorted(stray)} are outside {sorted(chunk_types)}")
        return self._replace_guarded(
            knowledge_id,
            attempt,
            statuses,
            _round_types(knowledge_id, attempt, chunk_types),
            chunks,
        )

    def replace_children(
        self,
        knowledge_id: str,
        attempt: int,
        chunk_type: str,
        parent_ids: Collection[str],
        chunks: Sequence[NewChunk],
        *,
        statuses: Collection[str],
    ) -> bool:
        """Replace the round's ``chunk_type`` children of ``parent_ids`` (one batch of a
        subtask writing children of many chunks) with ``chunks``, while the knowledge is at
        ``attempt`` with a parse status in ``statuses``; other parents' children stay."""
        if any(c.chunk_type != chunk_type or c.parent_chunk_id not in parent_ids for c in chunks):
            raise ValueError(f"chunks outside the {chunk_type} children of the parents given")
        replaced = _round_types(knowledge_id, attempt, [chunk_type]) & Chunk.parent_chunk_id.in_(
            sorted(parent_ids)
        )
        return self._replace_guarded(knowledge_id, attempt, statuses, replaced, chunks)

    def delete_children(
        self, knowledge_id: str, attempt: int, chunk_type: str, parent_ids: Collection[str]
    ) -> list[str]:
        """Remove the round's ``chunk_type`` children of ``parent_ids``; their ids."""
        where = _round_types(knowledge_id, attempt, [chunk_type]) & Chunk.parent_chunk_id.in_(
            sorted(parent_ids)
        )
        with self._db.session() as session:
            ids = list(session.scalars(select(Chunk.id).where(where)))
            session.execute(delete(Chunk).where(Chunk.id.in_(ids)))
        return ids

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

    def delete_of_types(self, knowledge_id: str, attempt: int, chunk_types: Collection[str]) -> int:
        """Remove the round's chunks of ``chunk_types``; other types and rounds stay."""
        with self._db.session() as session:
            statement = delete(Chunk).where(_round_types(knowledge_id, attempt, chunk_types))
            return affected_rows(session.execute(statement))

    def _replace_guarded(
        self,
        knowledge_id: str,
        attempt: int,
        statuses: Collection[str],
        replaced: ColumnElement[bool],
        chunks: Sequence[NewChunk],
    ) -> bool:
        """Delete ``replaced`` and insert ``chunks`` in one transaction holding the knowledge
        row, only while it is at ``attempt`` with a status in ``statuses``."""
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
            session.execute(delete(Chunk).where(replaced))
            for start in range(0, len(rows), INSERT_BATCH_SIZE):
                session.execute(insert(Chunk), rows[start : start + INSERT_BATCH_SIZE])
        return True

    def ids_of_attempt(
        self, knowledge_id: str, attempt: int, *, and_older: bool = False
    ) -> list[str]:
        """Ids of the chunks round ``attempt`` wrote (with ``and_older``: every round up to
        it), e.g. to remove their index rows before the rows themselves."""
        query = select(Chunk.id).where(_rounds(knowledge_id, attempt, and_older=and_older))
        with self._db.session() as session:
            return list(session.scalars(query))

    def owned_by_newer_rounds(
        self, knowledge_id: str, attempt: int, chunk_ids: Collection[str]
    ) -> set[str]:
        """Those of ``chunk_ids`` whose rows a round newer than ``attempt`` owns now (a
        requeued round took them over): their index rows are that round's."""
        if not chunk_ids:
            return set()
        query = select(Chunk.id).where(
            Chunk.knowledge_id == knowledge_id,
            Chunk.attempt > attempt,
            Chunk.id.in_(sorted(chunk_ids)),
        )
        with self._db.session() as session:
            return set(session.scalars(query))

    def delete_attempt(self, knowledge_id: str, attempt: int, *, and_older: bool = False) -> int:
        """Remove the chunks of round ``attempt`` (with ``and_older``: of every round up to
        it); a newer round's chunks are never touched."""
        with self._db.session() as session:
            statement = delete(Chunk).where(_rounds(knowledge_id, attempt, and_older=and_older))
            return affected_rows(session.execute(statement))

    def delete_by_knowledges(self, knowledge_ids: Sequence[str]) -> int:
        """Every chunk of the given knowledges (the delete chain)."""
        if not knowledge_ids:
            return 0
        with self._db.session() as session:
            result = session.execute(delete(Chunk).where(Chunk.knowledge_id.in_(knowledge_ids)))
            return affected_rows(result)

    def list_by_knowledge(
        self, knowledge_id: str, limit: int = 50, offset: int = 0, *, tenant_id: str | None
    ) -> tuple[list[Chunk], int]:
        """In document order (index, then type, so image children follow their text); none
        unless they are ``tenant_id``'s (None: any tenant's)."""
        query = (
            select(Chunk)
            .where(Chunk.knowledge_id == knowledge_id, *_of_tenant(tenant_id))
            .order_by(Chunk.chunk_index, Chunk.chunk_type, Chunk.id)
            .limit(limit)
            .offset(offset)
        )
        with self._db.session() as session:
            return list(session.scalars(query)), self._count(session, knowledge_id, tenant_id)

    def get_many(self, chunk_ids: Sequence[str], *, tenant_id: str | None) -> list[Chunk]:
        """The chunks that exist and are ``tenant_id``'s (None: any tenant's), in the order
        of ``chunk_ids``."""
        if not chunk_ids:
            return []
        query = select(Chunk).where(Chunk.id.in_(chunk_ids), *_of_tenant(tenant_id))
        with self._db.session() as session:
            found = {c.id: c for c in session.scalars(query)}
        return [found[chunk_id] for chunk_id in dict.fromkeys(chunk_ids) if chunk_id in found]

    def count_of_types(self, knowledge_id: str, attempt: int, chunk_types: Collection[str]) -> int:
        """How many chunks of ``chunk_types`` round ``attempt`` has."""
        query = (
            select(func.count())
            .select_from(Chunk)
            .where(_round_types(knowledge_id, attempt, chunk_types))
        )
        with self._db.session() as session:
            return int(session.scalar(query) or 0)

    def count_by_knowledge(self, knowledge_id: str) -> int:
        with self._db.session() as session:
            return self._count(session, knowledge_id, None)

    @staticmethod
    def _count(session: Session, knowledge_id: str, tenant_id: str | None) -> int:
        query = (
            select(func.count())
            .select_from(Chunk)
            .where(Chunk.knowledge_id == knowledge_id, *_of_tenant(tenant_id))
        )
        return int(session.scalar(query) or 0)


def _of_tenant(tenant_id: str | None) -> list[ColumnElement[bool]]:
    return [] if tenant_id is None else [Chunk.tenant_id == tenant_id]


def _round_types(
    knowledge_id: str, attempt: int, chunk_types: Collection[str]
) -> ColumnElement[bool]:
    return (
        (Chunk.knowledge_id == knowledge_id)
        & (Chunk.attempt == attempt)
        & Chunk.chunk_type.in_(list(chunk_types))
    )


def _rounds(knowledge_id: str, attempt: int, *, and_older: bool) -> ColumnElement[bool]:
    same_round = Chunk.attempt <= attempt if and_older else Chunk.attempt == attempt
    return (Chunk.knowledge_id == knowledge_id) & same_round
