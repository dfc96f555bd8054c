"""How far a processing round's indexing got (``index_checkpoints``): what lets a retried
or requeued round go on from its first missing batch instead of embedding everything again."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from storage.db.models.base import Base, utcnow


class IndexCheckpoint(Base):
    __tablename__ = "index_checkpoints"

    # One per knowledge: a newer round takes the row over (or replaces it).
    knowledge_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledges.id", ondelete="CASCADE"), primary_key=True
    )
    # The round whose text chunks the checkpoint describes.
    attempt: Mapped[int]
    # The parse it belongs to: a digest of the chunks and of how they are embedded.
    fingerprint: Mapped[str] = mapped_column(String(64))
    chunk_count: Mapped[int]
    # The first chunks (in document order) whose index rows are written.
    indexed_count: Mapped[int] = mapped_column(default=0)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
