"""The wiki's queued work and its guards (spec: TypeWikiIngest, «Подстраховка очереди Wiki»,
cleanupWikiOnKnowledgeDelete): a pending ingest per knowledge and round, claimed in batches
by the knowledge base's debounced wiki task; the tombstones of deleted knowledges; and when
housekeeping last re-triggered a knowledge base's ingest.

A claim is a guarded UPDATE (unclaimed, the claimer's own, or a claim older than the lease:
its task died), so two tasks of one knowledge base never take the same operation, on
PostgreSQL or SQLite alike."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import and_, delete, exists, or_, select, update

from core.statuses import ParseStatus
from storage.db.engine import Database
from storage.db.models import Knowledge, WikiKbTrigger, WikiPendingOp, WikiTombstone, utcnow
from storage.db.sql import affected_rows, dialect_insert

# wiki_pending_ops.op of a knowledge's round waiting to be written into pages (a delete's
# retract runs at once, then as its own task: it needs no pending row).
INGEST = "ingest"


class WikiOpRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add_ingest(
        self, tenant_id: str, knowledge_base_id: str, knowledge_id: str, attempt: int
    ) -> None:
        """Round ``attempt`` of the knowledge waits for the wiki (once, however often asked)."""
        with self._db.session() as session:
            present = session.scalar(
                select(WikiPendingOp.id).where(
                    WikiPendingOp.knowledge_id == knowledge_id,
                    WikiPendingOp.attempt == attempt,
                    WikiPendingOp.op == INGEST,
                )
            )
            if present is None:
                session.add(
                    WikiPendingOp(
                        tenant_id=tenant_id,
                        knowledge_base_id=knowledge_base_id,
                        knowledge_id=knowledge_id,
                        op=INGEST,
                        attempt=attempt,
                    )
                )

    def claim(
        self, knowledge_base_id: str, claimer: str, *, limit: int, expired_before: datetime
    ) -> list[WikiPendingOp]:
        """Up to ``limit`` of the base's ingests, oldest first, now claimed by ``claimer``:
        unclaimed ones, its own (a retry of the task), and claims taken before
        ``expired_before``."""
        claimable = and_(
            WikiPendingOp.knowledge_base_id == knowledge_base_id,
            WikiPendingOp.op == INGEST,
            or_(
                WikiPendingOp.claimed_by.is_(None),
                WikiPendingOp.claimed_by == claimer,
                WikiPendingOp.claimed_at < expired_before,
            ),
        )
        with self._db.session() as session:
            ids = list(
                session.scalars(
                    select(WikiPendingOp.id)
                    .where(claimable)
                    .order_by(WikiPendingOp.created_at, WikiPendingOp.id)
                    .limit(limit)
                )
            )
            if not ids:
                return []
            taken = set(
                session.scalars(
                    update(WikiPendingOp)
                    .where(WikiPendingOp.id.in_(ids), claimable)
                    .values(claimed_by=claimer, claimed_at=utcnow())
                    .returning(WikiPendingOp.id)
                    .execution_options(synchronize_session=False)
                )
            )
            ops = session.scalars(select(WikiPendingOp).where(WikiPendingOp.id.in_(taken)))
            return sorted(ops, key=lambda op: (op.created_at, op.id))

    def take_unclaimed(
        self, knowledge_base_id: str, expired_before: datetime, *, claimer: str | None = None
    ) -> list[WikiPendingOp]:
        """Remove and return the base's ingests no live task holds, and ``claimer``'s own
        (a knowledge base whose wiki is off or has no usable synthesis model: their rounds
        are to be released)."""
        holders = [WikiPendingOp.claimed_by.is_(None), WikiPendingOp.claimed_at < expired_before]
        if claimer:
            holders.append(WikiPendingOp.claimed_by == claimer)
        unclaimed = and_(
            WikiPendingOp.knowledge_base_id == knowledge_base_id,
            WikiPendingOp.op == INGEST,
            or_(*holders),
        )
        with self._db.session() as session:
            ops = list(session.scalars(select(WikiPendingOp).where(unclaimed)))
            if ops:
                session.execute(
                    delete(WikiPendingOp).where(WikiPendingOp.id.in_([op.id for op in ops]))
                )
            return ops

    def remove(self, op_id: str) -> None:
        with self._db.session() as session:
            session.execute(delete(WikiPendingOp).where(WikiPendingOp.id == op_id))

    def drop_for_knowledges(
        self, knowledge_ids: Sequence[str], *, up_to_attempt: int | None = None
    ) -> int:
        """The knowledges' operations (only those of rounds up to ``up_to_attempt`` when
        given: a newer round's stay); how many went."""
        if not knowledge_ids:
            return 0
        statement = delete(WikiPendingOp).where(WikiPendingOp.knowledge_id.in_(list(knowledge_ids)))
        if up_to_attempt is not None:
            statement = statement.where(WikiPendingOp.attempt <= up_to_attempt)
        with self._db.session() as session:
            return affected_rows(session.execute(statement))

    def oldest_ingest(self, knowledge_id: str, attempt: int) -> datetime | None:
        """When round ``attempt``'s ingest was queued; None when none waits."""
        with self._db.session() as session:
            return session.scalar(
                select(WikiPendingOp.created_at)
                .where(
                    WikiPendingOp.knowledge_id == knowledge_id,
                    WikiPendingOp.attempt == attempt,
                    WikiPendingOp.op == INGEST,
                )
                .order_by(WikiPendingOp.created_at)
                .limit(1)
            )

    def waiting_bases(self, queued_before: datetime) -> list[str]:
        """Knowledge bases with an ingest queued before ``queued_before`` whose knowledge is
        still finalizing at that round: documents the wiki queue holds."""
        held = exists().where(
            Knowledge.id == WikiPendingOp.knowledge_id,
            Knowledge.attempt == WikiPendingOp.attempt,
            Knowledge.parse_status == ParseStatus.FINALIZING,
        )
        query = (
            select(WikiPendingOp.knowledge_base_id)
            .where(WikiPendingOp.op == INGEST, WikiPendingOp.created_at < queued_before, held)
            .distinct()
        )
        with self._db.session() as session:
            return sorted(session.scalars(query))

    def mark_triggered(self, knowledge_base_id: str, now: datetime, not_since: datetime) -> bool:
        """Record a housekeeping re-trigger of the base's ingest at ``now``, unless one was
        recorded at or after ``not_since``; True when this call recorded it."""
        insert = dialect_insert(self._db.dialect_name, WikiKbTrigger).values(
            knowledge_base_id=knowledge_base_id, triggered_at=now
        )
        statement = insert.on_conflict_do_update(
            index_elements=[WikiKbTrigger.knowledge_base_id],
            set_={"triggered_at": now},
            where=WikiKbTrigger.triggered_at < not_since,
        ).returning(WikiKbTrigger.knowledge_base_id)
        with self._db.session() as session:
            return session.execute(statement).one_or_none() is not None

    def tombstone(self, rows: Sequence[tuple[str, str]]) -> None:
        """(knowledge id, knowledge base id) pairs deleted: no ingest writes for them again."""
        if not rows:
            return
        values = [
            {"knowledge_id": k, "knowledge_base_id": kb, "created_at": utcnow()} for k, kb in rows
        ]
        statement = (
            dialect_insert(self._db.dialect_name, WikiTombstone)
            .values(values)
            .on_conflict_do_nothing()
        )
        with self._db.session() as session:
            session.execute(statement)

    def purge_tombstones(self, created_before: datetime) -> int:
        """Tombstones older than any ingest that could still be running."""
        with self._db.session() as session:
            return affected_rows(
                session.execute(
                    delete(WikiTombstone).where(WikiTombstone.created_at < created_before)
                )
            )
