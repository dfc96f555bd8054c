"""Processing spans: one row per (knowledge, attempt, name), written by upsert.

Every change takes the next number of its knowledge's ``span_sequence`` in the same
transaction (the UPDATE locks the knowledge's row until commit), so a span's sequence grows
with each of its changes and sequences are committed in order: a reader that sees sequence N
has seen every change numbered below it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, inspect, select, update
from sqlalchemy.orm import Session

from core.clock import SYSTEM_CLOCK, Clock
from core.statuses import OPEN_SPAN_STATUSES
from storage.db.engine import Database
from storage.db.models import Knowledge, Span, new_id
from storage.db.sql import dialect_insert

SpanList = list[Span]

_SETTABLE = frozenset(inspect(Span).column_attrs.keys()) - {
    "id",
    "knowledge_id",
    "attempt",
    "name",
    "created_at",
    "updated_at",
    "sequence",
}

# The columns every upsert binds besides the fields it sets, and the prefix of its bind
# names (a bind may not take a column's own name).
_KEYS = ("id", "knowledge_id", "attempt", "name", "created_at", "updated_at", "sequence")
_BIND = "v_"


def _next_sequences(session: Session, knowledge_id: str, count: int = 1) -> int:
    """Reserve ``count`` sequence numbers for the knowledge's span changes; returns the last
    (0 when the knowledge is gone)."""
    bump = (
        update(Knowledge)
        .where(Knowledge.id == knowledge_id)
        .values(span_sequence=Knowledge.span_sequence + count)
        .returning(Knowledge.span_sequence)
    )
    return int(session.scalar(bump) or 0)


class SpanRepository:
    def __init__(self, db: Database, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._db = db
        # Stamps the heartbeats (updated_at) that stall verdicts and housekeeping judge.
        self._clock = clock
        self._statements: dict[frozenset[str], Any] = {}

    def upsert(self, knowledge_id: str, attempt: int, name: str, **fields: Any) -> Span:
        """Insert the span, or update ``fields`` of the existing one, atomically (ON CONFLICT),
        and bump updated_at either way: every call is a heartbeat. ``tenant_id`` defaults to
        the knowledge's."""
        return self.upsert_many(knowledge_id, attempt, [(name, fields)])[0]

    def upsert_many(
        self, knowledge_id: str, attempt: int, changes: Sequence[tuple[str, Mapping[str, Any]]]
    ) -> SpanList:
        """``upsert`` of several spans (name, fields) in one transaction, sequenced in the
        order given: one commit instead of one per span."""
        for _, fields in changes:
            unknown = fields.keys() - _SETTABLE
            if unknown:
                raise TypeError(f"span fields not settable: {sorted(unknown)}")
        now = self._clock.now()
        with self._db.session() as session:
            last = _next_sequences(session, knowledge_id, len(changes))
            # 0 for every change when the knowledge is gone, as for a single upsert.
            sequences = range(last - len(changes) + 1, last + 1) if last else [0] * len(changes)
            return [
                self._upsert_one(session, knowledge_id, attempt, name, fields, sequence, now)
                for sequence, (name, fields) in zip(sequences, changes, strict=True)
            ]

    def _upsert_one(
        self,
        session: Session,
        knowledge_id: str,
        attempt: int,
        name: str,
        fields: Mapping[str, Any],
        sequence: int,
        now: datetime,
    ) -> Span:
        values = {
            **fields,
            "id": new_id(),
            "knowledge_id": knowledge_id,
            "attempt": attempt,
            "name": name,
            "created_at": now,
            "updated_at": now,
            "sequence": sequence,
        }
        statement = self._statement(frozenset(fields))
        row: Span = session.scalars(statement, {_BIND + k: v for k, v in values.items()}).one()
        return row

    def _statement(self, fields: frozenset[str]) -> Any:
        """The upsert setting ``fields``, built once per set of fields: building one costs
        more than running it."""
        statement = self._statements.get(fields)
        if statement is not None:
            return statement
        columns = Span.__table__.c
        values: dict[str, Any] = {
            key: bindparam(_BIND + key, type_=columns[key].type) for key in (*_KEYS, *fields)
        }
        if "tenant_id" not in fields:
            values["tenant_id"] = (
                select(Knowledge.tenant_id)
                .where(Knowledge.id == bindparam(_BIND + "knowledge_id"))
                .scalar_subquery()
            )
        insert = dialect_insert(self._db.dialect_name, Span).values(values)
        excluded = insert.excluded
        changes = {key: excluded[key] for key in fields if key != "tenant_id"}
        statement = (
            insert.on_conflict_do_update(
                index_elements=[Span.knowledge_id, Span.attempt, Span.name],
                set_={**changes, "updated_at": excluded.updated_at, "sequence": excluded.sequence},
            )
            .returning(Span)
            .execution_options(populate_existing=True)
        )
        self._statements[fields] = statement
        return statement

    def list(self, knowledge_id: str, attempt: int, *, tenant_id: str | None) -> SpanList:
        """The attempt's spans, if they are ``tenant_id``'s (None: any tenant's)."""
        tenant = [] if tenant_id is None else [Span.tenant_id == tenant_id]
        query = (
            select(Span)
            .where(Span.knowledge_id == knowledge_id, Span.attempt == attempt, *tenant)
            .order_by(Span.created_at, Span.name)
        )
        with self._db.session() as session:
            return list(session.scalars(query))

    def id_of(self, knowledge_id: str, attempt: int, name: str) -> str | None:
        """The id of the attempt's span ``name``; None when it has none."""
        query = select(Span.id).where(
            Span.knowledge_id == knowledge_id, Span.attempt == attempt, Span.name == name
        )
        with self._db.session() as session:
            return session.scalar(query)

    def latest_attempt(self, knowledge_id: str) -> int:
        """The highest attempt with spans; 0 when there are none."""
        query = select(func.max(Span.attempt)).where(Span.knowledge_id == knowledge_id)
        with self._db.session() as session:
            return int(session.scalar(query) or 0)

    def last_activity(self, knowledge_id: str, attempt: int) -> datetime | None:
        """The attempt's heartbeat: the latest updated_at of its spans."""
        query = select(func.max(Span.updated_at)).where(
            Span.knowledge_id == knowledge_id, Span.attempt == attempt
        )
        with self._db.session() as session:
            return session.scalar(query)

    def close_open(
        self,
        knowledge_id: str,
        attempt: int,
        status: str,
        error_code: str | None,
        error_message: str | None,
        *,
        status_by_name: Mapping[str, str] | None = None,
    ) -> SpanList:
        """End every pending/running span of the attempt with ``status`` (or, for the spans
        named in ``status_by_name``, with the status given there); returns the spans closed,
        each with the sequence number of this change."""
        overrides = dict(status_by_name or {})
        query = (
            select(Span)
            .where(
                Span.knowledge_id == knowledge_id,
                Span.attempt == attempt,
                Span.status.in_(sorted(OPEN_SPAN_STATUSES)),
            )
            .order_by(Span.created_at, Span.name)
        )
        now = self._clock.now()
        with self._db.session() as session:
            # The knowledge's row first (a bump by 0 locks it), as every span write does: one
            # lock order, and no span of it changes under us from then on.
            _next_sequences(session, knowledge_id, 0)
            spans = list(session.scalars(query.with_for_update()))
            last = _next_sequences(session, knowledge_id, len(spans))
            for sequence, span in enumerate(spans, start=last - len(spans) + 1):
                span.status = overrides.get(span.name, status)
                span.error_code = error_code
                span.error_message = error_message
                span.ended_at = now
                if span.started_at is not None:
                    span.duration_ms = max(0, int((now - span.started_at).total_seconds() * 1000))
                span.updated_at = now
                span.sequence = sequence
        return spans
