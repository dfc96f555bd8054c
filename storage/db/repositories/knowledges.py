"""Knowledge rows: creation, duplicate detection, listing and the guarded state machine.

Every status change is one ``UPDATE … WHERE parse_status IN (…) [AND attempt = ?]``, and
every counter change is arithmetic inside the UPDATE, so racing workers, cancels and
deletes can never move a row backwards or lose a decrement.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Select,
    and_,
    case,
    delete,
    exists,
    func,
    inspect,
    literal,
    or_,
    select,
    text,
    true,
    update,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from core.statuses import DEDUP_IGNORED, EnableStatus, KnowledgeType, ParseStatus, SummaryStatus
from storage.db.engine import Database
from storage.db.errors import NotFoundError
from storage.db.models import Chunk, Knowledge, KnowledgeTag, UTCDateTime, utcnow
from storage.db.repositories import tags
from storage.db.sql import affected_rows

KnowledgePage = tuple[list[Knowledge], int]
KnowledgeList = list[Knowledge]

_COLUMNS = frozenset(inspect(Knowledge).column_attrs.keys())
# Changed only through transition / next_attempt / always by the repository itself.
_GUARDED = frozenset({"id", "tenant_id", "parse_status", "attempt", "created_at", "updated_at"})


def _checked(fields: dict[str, Any]) -> dict[str, Any]:
    unknown = fields.keys() - _COLUMNS
    if unknown:
        raise TypeError(f"unknown knowledge fields: {sorted(unknown)}")
    guarded = fields.keys() & _GUARDED
    if guarded:
        raise TypeError(f"fields not settable here: {sorted(guarded)}")
    return fields


class KnowledgeRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, *, tag_ids: Sequence[str] = (), **fields: Any) -> Knowledge:
        """Insert the row, linked to ``tag_ids`` in the same transaction."""
        knowledge = Knowledge(**fields)
        with self._db.session() as session:
            _add_tagged(session, knowledge, tag_ids)
        return knowledge

    def get(self, knowledge_id: str, tenant_id: str | None) -> Knowledge | None:
        """The row if it is ``tenant_id``'s; None reads across tenants (admins, workers:
        said explicitly, so an API path cannot forget its caller's tenant)."""
        query = select(Knowledge).where(Knowledge.id == knowledge_id)
        if tenant_id is not None:
            query = query.where(Knowledge.tenant_id == tenant_id)
        with self._db.session() as session:
            return session.scalars(query).one_or_none()

    def find_duplicate(
        self,
        tenant_id: str,
        knowledge_base_id: str,
        *,
        file_hash: str,
        file_type: str,
        file_name: str,
        file_size: int,
    ) -> Knowledge | None:
        """The spec's rule: (same hash OR same name and size) AND same file type (case
        folded), in the same tenant and knowledge base, ignoring failed and deleting rows.

        An empty hash never matches (rows without content hashes are not files)."""
        query = _duplicate_query(
            tenant_id, knowledge_base_id, file_hash, file_type, file_name, file_size
        )
        with self._db.session() as session:
            return session.scalars(query).first()

    def create_unless_duplicate(
        self, *, tag_ids: Sequence[str] = (), **fields: Any
    ) -> tuple[Knowledge, bool]:
        """Insert a file knowledge (linked to ``tag_ids``) unless a duplicate
        (find_duplicate's rule) exists, as one step: two identical uploads racing each other
        cannot both get in. Returns the row and whether it is the new one. The knowledge
        base is locked for the check (an advisory lock on PostgreSQL; SQLite transactions
        here start with BEGIN IMMEDIATE)."""
        query = _duplicate_query(
            fields["tenant_id"],
            fields["knowledge_base_id"],
            fields.get("file_hash", ""),
            fields["file_type"],
            fields["file_name"],
            fields["file_size"],
        )
        return self._insert_unless_found(query, fields, tag_ids)

    def create_unless_url_duplicate(
        self, *, tag_ids: Sequence[str] = (), **fields: Any
    ) -> tuple[Knowledge, bool]:
        """Insert a URL knowledge (linked to ``tag_ids``) unless the knowledge base already
        holds one for the same (normalized) URL in ``source`` that is neither failed nor
        being deleted — one step, like create_unless_duplicate. Returns the row and whether
        it is the new one."""
        query = (
            select(Knowledge)
            .where(
                Knowledge.tenant_id == fields["tenant_id"],
                Knowledge.knowledge_base_id == fields["knowledge_base_id"],
                Knowledge.type == KnowledgeType.URL,
                Knowledge.source == fields["source"],
                Knowledge.parse_status.not_in(sorted(DEDUP_IGNORED)),
            )
            .order_by(Knowledge.created_at, Knowledge.id)
            .limit(1)
        )
        return self._insert_unless_found(query, fields, tag_ids)

    def _insert_unless_found(
        self, query: Select[Knowledge], fields: dict[str, Any], tag_ids: Sequence[str]
    ) -> tuple[Knowledge, bool]:
        with self._db.session() as session:
            if session.get_bind().dialect.name == "postgresql":
                session.execute(
                    text("SELECT pg_advisory_xact_lock(hashtext(:kb))"),
                    {"kb": fields["knowledge_base_id"]},
                )
            existing = session.scalars(query).first()
            if existing is not None:
                return existing, False
            knowledge = Knowledge(**fields)
            _add_tagged(session, knowledge, tag_ids)
        return knowledge, True

    def list(
        self,
        tenant_id: str | None,
        knowledge_base_id: str,
        *,
        statuses: Collection[str] | None = None,
        keyword: str | None = None,
        file_type: str | None = None,
        tag_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> KnowledgePage:
        """Newest first. No ``statuses`` = everything but deleting."""
        conditions = [Knowledge.knowledge_base_id == knowledge_base_id]
        if tenant_id is not None:
            conditions.append(Knowledge.tenant_id == tenant_id)
        if statuses:
            conditions.append(Knowledge.parse_status.in_(sorted(statuses)))
        else:
            conditions.append(Knowledge.parse_status != ParseStatus.DELETING)
        if keyword:
            needle = keyword.lower()
            conditions.append(
                or_(
                    func.lower(Knowledge.title).contains(needle, autoescape=True),
                    func.lower(Knowledge.file_name).contains(needle, autoescape=True),
                )
            )
        if file_type:
            conditions.append(func.lower(Knowledge.file_type) == file_type.lower())
        if tag_id:
            conditions.append(
                exists().where(
                    KnowledgeTag.knowledge_id == Knowledge.id, KnowledgeTag.tag_id == tag_id
                )
            )
        query = (
            select(Knowledge)
            .where(*conditions)
            .order_by(Knowledge.created_at.desc(), Knowledge.id)
            .limit(limit)
            .offset(offset)
        )
        with self._db.session() as session:
            total = session.scalar(select(func.count()).select_from(Knowledge).where(*conditions))
            return list(session.scalars(query)), total or 0

    def transition(
        self,
        knowledge_id: str,
        *,
        from_statuses: Iterable[str],
        to_status: str,
        attempt: int | None = None,
        **fields: Any,
    ) -> bool:
        """Move ``from_statuses`` → ``to_status`` (setting ``fields`` too) in one guarded
        UPDATE; False when the row was in another state or belongs to another attempt."""
        values = {**_checked(fields), "parse_status": to_status, "updated_at": utcnow()}
        return self._guarded_update(knowledge_id, attempt, values, from_statuses)

    def update_fields(
        self, knowledge_id: str, *, attempt: int | None = None, **fields: Any
    ) -> bool:
        """Set non-status fields; with ``attempt``, only while that attempt is current."""
        values = {**_checked(fields), "updated_at": utcnow()}
        return self._guarded_update(knowledge_id, attempt, values, None)

    def touch(self, knowledge_id: str) -> bool:
        """Bump updated_at, the heartbeat housekeeping reads."""
        return self._guarded_update(knowledge_id, None, {"updated_at": utcnow()}, None)

    def next_attempt(self, knowledge_id: str) -> int:
        """Atomically increment and return the attempt: each processing round gets its own."""
        statement = (
            update(Knowledge)
            .where(Knowledge.id == knowledge_id)
            .values(attempt=Knowledge.attempt + 1, updated_at=utcnow())
            .returning(Knowledge.attempt)
        )
        with self._db.session() as session:
            attempt = session.execute(statement).scalar_one_or_none()
        if attempt is None:
            raise NotFoundError(f"knowledge {knowledge_id} not found")
        return attempt

    def begin_attempt(self, knowledge_id: str, *, after_attempt: int, **fields: Any) -> int | None:
        """Open the next processing round: attempt + 1, parse_status pending, ``fields`` set,
        guarded on the round still being ``after_attempt`` and the row being neither a draft
        nor being deleted. Returns the new attempt, or None when the guard failed."""
        values = {
            **_checked(fields),
            "attempt": Knowledge.attempt + 1,
            "parse_status": ParseStatus.PENDING.value,
            "updated_at": utcnow(),
        }
        statement = (
            update(Knowledge)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.attempt == after_attempt,
                Knowledge.parse_status.not_in([ParseStatus.DELETING, ParseStatus.DRAFT]),
            )
            .values(**values)
            .returning(Knowledge.attempt)
        )
        with self._db.session() as session:
            return session.execute(statement).scalar_one_or_none()

    def close_open_summary(self, knowledge_id: str, to_status: str) -> bool:
        """A summary still pending or processing becomes ``to_status`` (its task is moot)."""
        statement = (
            update(Knowledge)
            .where(
                Knowledge.id == knowledge_id,
                Knowledge.summary_status.in_([SummaryStatus.PENDING, SummaryStatus.PROCESSING]),
            )
            .values(summary_status=to_status)
            .execution_options(synchronize_session=False)
        )
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0

    def get_many(self, knowledge_ids: Sequence[str], *, tenant_id: str | None) -> KnowledgeList:
        """The rows that exist and are ``tenant_id``'s (None: any tenant's), in the order of
        ``knowledge_ids``."""
        if not knowledge_ids:
            return []
        query = select(Knowledge).where(Knowledge.id.in_(list(knowledge_ids)))
        if tenant_id is not None:
            query = query.where(Knowledge.tenant_id == tenant_id)
        with self._db.session() as session:
            found = {row.id: row for row in session.scalars(query)}
        return [found[i] for i in dict.fromkeys(knowledge_ids) if i in found]

    def unsearchable_ids(self, knowledge_base_ids: Sequence[str]) -> Sequence[str]:
        """The knowledges of these knowledge bases that have chunks but are not enabled
        (still indexing, or a round that did not finish): Search must skip their rows."""
        if not knowledge_base_ids:
            return []
        query = select(Knowledge.id).where(
            Knowledge.knowledge_base_id.in_(list(knowledge_base_ids)),
            Knowledge.enable_status != EnableStatus.ENABLED,
            exists().where(Chunk.knowledge_id == Knowledge.id),
        )
        with self._db.session() as session:
            return sorted(session.scalars(query))

    def of_tenant(self, tenant_id: str) -> KnowledgeList:
        """Every row of the tenant, those being deleted too (deleting a tenant)."""
        query = select(Knowledge).where(Knowledge.tenant_id == tenant_id)
        with self._db.session() as session:
            return [*session.scalars(query)]

    def reprocessable(self, knowledge_base_id: str, *, tenant_id: str | None) -> KnowledgeList:
        """The knowledge base's rows a reparse may restart (all but drafts and deleting),
        if they are ``tenant_id``'s (None: any tenant's)."""
        tenant = [] if tenant_id is None else [Knowledge.tenant_id == tenant_id]
        query = (
            select(Knowledge)
            .where(
                *tenant,
                Knowledge.knowledge_base_id == knowledge_base_id,
                Knowledge.parse_status.not_in([ParseStatus.DELETING, ParseStatus.DRAFT]),
            )
            .order_by(Knowledge.created_at, Knowledge.id)
        )
        with self._db.session() as session:
            return [*session.scalars(query)]

    def mark_deleting(self, knowledge_ids: Sequence[str]) -> KnowledgeList:
        """Move every given row that is not being deleted yet to deleting (one guarded
        UPDATE), so concurrent tasks stop writing; returns the rows as they were before."""
        if not knowledge_ids:
            return []
        ids = list(dict.fromkeys(knowledge_ids))
        with self._db.session() as session:
            before: KnowledgeList = [
                *session.scalars(
                    select(Knowledge)
                    .where(Knowledge.id.in_(ids), Knowledge.parse_status != ParseStatus.DELETING)
                    .with_for_update()
                )
            ]
            marked = [row.id for row in before]
            if marked:
                session.execute(
                    update(Knowledge)
                    .where(Knowledge.id.in_(marked))
                    .values(parse_status=ParseStatus.DELETING.value, updated_at=utcnow())
                    .execution_options(synchronize_session=False)
                )
            for row in before:
                session.expunge(row)
        return before

    def delete_tag_links(self, knowledge_ids: Sequence[str]) -> int:
        if not knowledge_ids:
            return 0
        statement = delete(KnowledgeTag).where(KnowledgeTag.knowledge_id.in_(knowledge_ids))
        with self._db.session() as session:
            return affected_rows(session.execute(statement))

    def delete_many(self, knowledge_ids: Sequence[str]) -> int:
        """Delete the rows; what still refers to them goes with them (cascade)."""
        if not knowledge_ids:
            return 0
        statement = delete(Knowledge).where(Knowledge.id.in_(knowledge_ids))
        with self._db.session() as session:
            return affected_rows(session.execute(statement))

    def add_pending_subtasks(self, knowledge_id: str, attempt: int, delta: int) -> int | None:
        """Add ``delta`` (negative to give back unqueued subtasks; never below 0) and return
        the new count, or None when ``attempt`` is no longer current. Reaching 0 while
        finalizing completes the knowledge, as the last finalize_subtask would."""
        row = self._adjust_subtasks(knowledge_id, attempt, delta, only_if_positive=False)
        return None if row is None else row[1]

    def finalize_subtask(self, knowledge_id: str, attempt: int) -> bool:
        """One enrichment subtask of ``attempt`` is done: decrement the counter. True when
        this call brought it to 0 and so moved the knowledge finalizing → completed."""
        row = self._adjust_subtasks(knowledge_id, attempt, -1, only_if_positive=True)
        return row is not None and row == (ParseStatus.COMPLETED, 0)

    def delete(self, knowledge_id: str) -> bool:
        """Delete the row; chunks, spans, tag links and graph rows go with it (cascade)."""
        with self._db.session() as session:
            result = session.execute(delete(Knowledge).where(Knowledge.id == knowledge_id))
            return affected_rows(result) > 0

    def _guarded_update(
        self,
        knowledge_id: str,
        attempt: int | None,
        values: dict[str, Any],
        from_statuses: Iterable[str] | None,
    ) -> bool:
        statement = update(Knowledge).where(Knowledge.id == knowledge_id)
        if from_statuses is not None:
            statement = statement.where(Knowledge.parse_status.in_(list(from_statuses)))
        if attempt is not None:
            statement = statement.where(Knowledge.attempt == attempt)
        statement = statement.values(**values).execution_options(synchronize_session=False)
        with self._db.session() as session:
            return affected_rows(session.execute(statement)) > 0

    def _adjust_subtasks(
        self, knowledge_id: str, attempt: int, delta: int, *, only_if_positive: bool
    ) -> tuple[str, int] | None:
        now = utcnow()
        statement = update(Knowledge).where(
            Knowledge.id == knowledge_id, Knowledge.attempt == attempt
        )
        if only_if_positive:
            statement = statement.where(Knowledge.pending_subtasks_count > 0)
        statement = statement.values(**subtask_count_values(delta, now), updated_at=now).returning(
            Knowledge.parse_status, Knowledge.pending_subtasks_count
        )
        with self._db.session() as session:
            row = session.execute(statement).one_or_none()
        return None if row is None else (row[0], row[1])


def subtask_count_values(
    delta: int, now: datetime, applies: ColumnElement[bool] | None = None
) -> dict[str, Any]:
    """The SET values that add ``delta`` to the subtask counter (never below 0) where
    ``applies`` (always when None), and complete a finalizing knowledge it brings to 0. SET
    expressions all see the row as it was before the UPDATE (SQL semantics)."""
    count = Knowledge.pending_subtasks_count
    applies = true() if applies is None else applies
    completes = and_(applies, Knowledge.parse_status == ParseStatus.FINALIZING, count + delta <= 0)
    return {
        "pending_subtasks_count": case(
            (and_(applies, count + delta < 0), 0), (applies, count + delta), else_=count
        ),
        "parse_status": case(
            (completes, ParseStatus.COMPLETED.value), else_=Knowledge.parse_status
        ),
        "processed_at": case(
            (completes, literal(now, UTCDateTime())), else_=Knowledge.processed_at
        ),
    }


def _add_tagged(session: Session, knowledge: Knowledge, tag_ids: Sequence[str]) -> None:
    session.add(knowledge)
    if tag_ids:
        session.flush()  # the row first: its links refer to it
        tags.link(session, knowledge.id, tag_ids)


def _duplicate_query(
    tenant_id: str,
    knowledge_base_id: str,
    file_hash: str,
    file_type: str,
    file_name: str,
    file_size: int,
) -> Select[Knowledge]:
    same_content = Knowledge.file_hash == file_hash if file_hash else None
    same_name_size = and_(Knowledge.file_name == file_name, Knowledge.file_size == file_size)
    content_match = same_name_size if same_content is None else or_(same_content, same_name_size)
    return (
        select(Knowledge)
        .where(
            Knowledge.tenant_id == tenant_id,
            Knowledge.knowledge_base_id == knowledge_base_id,
            Knowledge.parse_status.not_in(sorted(DEDUP_IGNORED)),
            func.lower(Knowledge.file_type) == file_type.lower(),
            content_match,
        )
        .order_by(Knowledge.created_at, Knowledge.id)
        .limit(1)
    )
