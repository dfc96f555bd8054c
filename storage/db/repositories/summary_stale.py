"""The one place an edit says "the knowledge's summary is now stale".

A summary is written from the knowledge's chunks (their content and enabled flags) and its
metadata. An edit of any of them (UpdateChunk, SetChunkEnabled, UpdateKnowledgeMetadata)
calls ``mark_summary_stale`` inside the transaction that makes the edit, so the flag and the
edit commit together. Only a ``completed`` summary is marked: one still pending or
processing snapshots its inputs (each chunk's ``content_revision`` and ``is_enabled``, the
knowledge's ``metadata_version``) and drops its own result when they moved meanwhile.

The summary refresh finds its work as ``knowledges.summary_stale`` (it clears the flag when
it writes the new summary; a reparse clears it too, its round writes a new summary anyway).
It is queued once per staleness: ``mark_summary_stale`` answers True only for the edit that
turned the flag on, and that edit's caller is where the refresh is to be queued.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from core.statuses import SummaryStatus
from storage.db.models import Knowledge, utcnow


def mark_summary_stale(session: Session, knowledge: Knowledge) -> bool:
    """Flag the completed summary of ``knowledge`` (a row of ``session``, locked by the
    edit) stale; True when this call turned the flag on (queue one refresh then)."""
    if knowledge.summary_status != SummaryStatus.COMPLETED or knowledge.summary_stale:
        return False
    knowledge.summary_stale = True
    knowledge.updated_at = utcnow()
    session.flush()
    return True
