"""The knowledge graph after a chunk's content edit: what extraction read in the old text
no longer describes the chunk.

Run once the edit has committed, never inside its transaction (on SQLite the edit holds the
one writer): the chunk's mentions and relation sources are removed, with the entities and
relations nothing mentions any more (GraphStore.remove_chunks), and when the effective
configuration has the graph on and the knowledge is completed, a re-extraction of the
chunk is queued (knowledge:graph_refresh, workers.enrichment.graph_refresh), guarded by the
content revision it was queued for. Either failing is logged: the edit stands.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from core.effective_config import resolve
from core.markdown_images import says_more_than_images
from core.payloads import GraphRefreshPayload
from core.statuses import ParseStatus
from storage.db.models import Chunk, Knowledge
from storage.graph.store import GraphStore
from storage.queue.base import QueueError, TaskQueue
from workers import task_specs

log = logging.getLogger(__name__)


def refresh_graph_after_edit(
    graph: GraphStore,
    queue: TaskQueue,
    knowledge: Knowledge,
    chunk: Chunk,
    kb_config: dict[str, Any],
) -> None:
    """Drop the edited ``chunk``'s graph rows and queue its re-extraction when due."""
    try:
        graph.remove_chunks(knowledge.id, [chunk.id], content_revision=chunk.content_revision)
    except SQLAlchemyError as exc:  # the edit has committed; the old rows stay until a reparse
        log.warning("graph rows of edited chunk %s not removed: %s", chunk.id, exc)
    config = resolve(kb_config, knowledge.process_overrides)
    # A round's graph chunks: enabled text chunks with words of their own (graph_subtask).
    due = (
        config.graph_enabled
        and knowledge.parse_status == ParseStatus.COMPLETED
        and chunk.is_enabled
        and says_more_than_images(chunk.content)
    )
    if not due:
        return
    payload = GraphRefreshPayload(
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        knowledge_base_id=knowledge.knowledge_base_id,
        attempt=knowledge.attempt,
        chunk_id=chunk.id,
        content_revision=chunk.content_revision,
    )
    try:
        queue.enqueue(task_specs.graph_refresh(payload))
    except QueueError as exc:
        log.warning("graph refresh of edited chunk %s not queued: %s", chunk.id, exc)
