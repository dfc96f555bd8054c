"""The one place a change says "the knowledge's summary must be written again".

A summary is written from the knowledge's text chunks (their content and enabled flags) and
its metadata. An edit of any of them (UpdateChunk, SetChunkEnabled of a text chunk,
UpdateKnowledgeMetadata) calls ``mark_summary_stale`` inside the transaction that makes the
edit, and RegenerateSummary calls ``request_summary_refresh``, so the state and the change
commit together; the caller then queues the refresh task with the sequence returned
(``workers.task_specs.summary_refresh``).

Only a knowledge whose round is completed is refreshed (edits are refused while a round
runs; that round writes its own summary). The summary goes → pending (a refresh queued)
unless one is already pending or processing, and ``summary_stale`` is set while the
summary held no longer reflects its inputs. The returned ``summary_refresh_seq`` names the
task: edits while a refresh waits queue the same job id (deduplicated), and a refresh that
begins bumps it, so an edit landing while it runs queues one more, which finishes the job
(the running one finds its snapshot changed and drops its result).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from core.statuses import ParseStatus, SummaryStatus
from storage.db.models import Knowledge, utcnow

OPEN_SUMMARY = (SummaryStatus.PENDING, SummaryStatus.PROCESSING)


def mark_summary_stale(session: Session, knowledge: Knowledge) -> int | None:
    """An input of the summary of ``knowledge`` (a row of ``session``, locked by the edit)
    changed: the sequence of the refresh to queue, or None when it has no summary to
    refresh (none written and none being written, or its round is not completed)."""
    if knowledge.parse_status != ParseStatus.COMPLETED:
        return None
    if not knowledge.summary and knowledge.summary_status not in OPEN_SUMMARY:
        return None
    return _request(session, knowledge, stale=bool(knowledge.summary))


def request_summary_refresh(session: Session, knowledge: Knowledge) -> int:
    """RegenerateSummary: a refresh of the completed ``knowledge`` (locked) whatever its
    summary's state (its inputs did not change: not stale); the sequence of the task to
    queue."""
    return _request(session, knowledge, stale=False)


def _request(session: Session, knowledge: Knowledge, *, stale: bool) -> int:
    if stale:
        knowledge.summary_stale = True
    if knowledge.summary_status not in OPEN_SUMMARY:
        knowledge.summary_status = SummaryStatus.PENDING
    knowledge.updated_at = utcnow()
    session.flush()
    return knowledge.summary_refresh_seq
