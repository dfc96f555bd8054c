"""The post-processing subtasks of a round that have ended (``subtask_ends``): one row per
(knowledge, round, kind, index), written in the transaction that counts the subtask down,
so a subtask retried, or whose dead letter runs after a try ended it, counts once."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from storage.db.models.base import Base, utcnow


class SubtaskEnd(Base):
    __tablename__ = "subtask_ends"

    knowledge_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledges.id", ondelete="CASCADE"), primary_key=True
    )
    # The round (knowledges.attempt) the subtask belongs to.
    attempt: Mapped[int] = mapped_column(primary_key=True)
    # The subtask kind ("question", later "graph", ...) and its number within the round.
    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    subtask_index: Mapped[int] = mapped_column(primary_key=True)
    ended_at: Mapped[datetime] = mapped_column(default=utcnow)
