"""What enrichment derived from knowledges (queued wiki operations), removed when the
knowledges go (spec: «Цепочка очистки при удалении»; the graph's share is storage/graph)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete

from storage.db.engine import Database
from storage.db.models import WikiPendingOp
from storage.db.sql import affected_rows


class EnrichmentRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def delete_wiki_ops(self, knowledge_ids: Sequence[str]) -> int:
        """Wiki operations still waiting for the knowledges: nothing is left to ingest."""
        if not knowledge_ids:
            return 0
        statement = delete(WikiPendingOp).where(WikiPendingOp.knowledge_id.in_(list(knowledge_ids)))
        with self._db.session() as session:
            return affected_rows(session.execute(statement))
