"""What enrichment derived from knowledges (graph nodes and edges), removed when the
knowledges go (spec: «Цепочка очистки при удалении»; the wiki's part is wiki_ops and
wiki_writes)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete

from storage.db.engine import Database
from storage.db.models import GraphEdge, GraphNode
from storage.db.sql import affected_rows


class EnrichmentRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def delete_graph(self, knowledge_ids: Sequence[str]) -> int:
        """The knowledges' graph nodes and edges; returns how many rows went."""
        if not knowledge_ids:
            return 0
        ids = list(knowledge_ids)
        with self._db.session() as session:
            edges = session.execute(delete(GraphEdge).where(GraphEdge.knowledge_id.in_(ids)))
            nodes = session.execute(delete(GraphNode).where(GraphNode.knowledge_id.in_(ids)))
            return affected_rows(edges) + affected_rows(nodes)
