"""What a knowledge base's profile is written from and where it is kept (kb:profile): its
documents' titles and summaries, in a fixed order, and the profile columns of its row."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update

from core.statuses import ParseStatus, SummaryStatus
from storage.db.engine import Database
from storage.db.models import Knowledge, KnowledgeBase
from storage.db.sql import affected_rows


@dataclass(frozen=True)
class ProfileDocument:
    title: str
    # The completed summary ("" when there is none).
    summary: str


class KnowledgeBaseProfileRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def documents(self, knowledge_base_id: str) -> list[ProfileDocument]:
        """Every knowledge of the base not being deleted, oldest first (ties by id), its
        title (else its file name) and its completed summary."""
        query = (
            select(
                Knowledge.title, Knowledge.file_name, Knowledge.summary, Knowledge.summary_status
            )
            .where(
                Knowledge.knowledge_base_id == knowledge_base_id,
                Knowledge.parse_status != ParseStatus.DELETING,
            )
            .order_by(Knowledge.created_at, Knowledge.id)
        )
        with self._db.session() as session:
            return [
                ProfileDocument(
                    title=title or file_name or "",
                    summary=(summary or "") if status == SummaryStatus.COMPLETED else "",
                )
                for title, file_name, summary, status in session.execute(query)
            ]

    def store(
        self, knowledge_base_id: str, description: str, source_hash: str, at: datetime
    ) -> bool:
        """Write the profile (updated_at stays: it tells of the user's changes); False when
        the knowledge base is gone."""
        with self._db.session() as session:
            result = session.execute(
                update(KnowledgeBase)
                .where(KnowledgeBase.id == knowledge_base_id)
                .values(
                    profile_description=description,
                    profile_hash=source_hash,
                    profile_generated_at=at,
                )
            )
            return affected_rows(result) > 0
