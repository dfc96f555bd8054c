"""Deleting knowledges (spec: «Цепочка очистки при удалении»), in the spec's order:

1. mark them deleting (one guarded UPDATE): concurrent tasks stop writing, because every
   write of theirs is guarded on the row being theirs and processing, and List hides them;
   their catalogued files are marked deleted, so no access grant opens them any more
   (housekeeping lifts that mark again if it hands a stuck deletion back as failed);
2. remove their queued tasks and tell running ones to stop;
3. in parallel: index rows (one delete per embedding model, with every id), chunks,
   graph rows, the wiki (tombstones, pending ingests dropped, pages reconciled, a
   wiki:retract queued: workers.enrichment.wiki.retract);
4. tag links, then the rows themselves, and their knowledge bases' profiles refreshed;
5. last and best effort: the stored originals and every extracted image (their catalog
   records stay, marked deleted, until housekeeping forgets them).

Files go last so a failure before that leaves nothing pointing at a missing file, and the
whole chain can run again on rows still marked deleting (every step is idempotent).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from core.statuses import IN_FLIGHT, ParseStatus
from storage.db.models import Knowledge
from storage.db.repositories.resources import KNOWLEDGE_FILES
from storage.events.base import ProgressEvent
from workers.enrichment.wiki.retract import retract_deleted
from workers.lifecycle.files import remove_knowledge_files
from workers.lifecycle.parts import DeletionParts
from workers.profile_request import request_profile_refresh

log = logging.getLogger(__name__)

# Index, chunks, graph and wiki: the four kinds of step 3.
_CLEANUP_THREADS = 4


def mark_deleting(ctx: DeletionParts, knowledge_ids: Sequence[str]) -> list[Knowledge]:
    """Steps 1 and 2. Returns the rows this call marked, as they were before (a row
    already being deleted is not returned)."""
    marked = ctx.knowledges.mark_deleting(knowledge_ids)
    ctx.catalog.mark_deleted(KNOWLEDGE_FILES, [row.id for row in marked])
    for row in marked:
        ctx.publisher.publish(
            ProgressEvent(row.id, row.attempt, "state", {"parse_status": ParseStatus.DELETING})
        )
        if row.parse_status in IN_FLIGHT:
            ctx.queue.cancel_group(row.id)
    return marked


def delete_marked(ctx: DeletionParts, rows: Sequence[Knowledge]) -> None:
    """Steps 3 to 5 for rows already marked deleting."""
    if not rows:
        return
    ids = [row.id for row in rows]
    steps: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
        (ctx.index.delete_by_knowledge, (model_key, model_ids))
        for model_key, model_ids in _ids_by_model(ctx, rows).items()
    ]
    steps += [
        (ctx.chunks.delete_by_knowledges, (ids,)),
        (ctx.enrichment.delete_graph, (ids,)),
        (retract_deleted, (ctx, [(row.id, row.knowledge_base_id) for row in rows])),
    ]
    with ThreadPoolExecutor(_CLEANUP_THREADS, thread_name_prefix="knowledge-delete") as pool:
        futures = [pool.submit(step, *args) for step, args in steps]
    for future in futures:
        future.result()  # the first failure stops the chain here: the rows stay deleting
    ctx.knowledges.delete_tag_links(ids)
    ctx.knowledges.delete_many(ids)
    # Their knowledge bases' profiles no longer describe them.
    for kb_id in dict.fromkeys(row.knowledge_base_id for row in rows):
        request_profile_refresh(ctx, kb_id)
    files = remove_knowledge_files(ctx, rows)
    log.info("deleted %d knowledges (%d stored files)", len(ids), files)


def _ids_by_model(ctx: DeletionParts, rows: Sequence[Knowledge]) -> dict[str, list[str]]:
    """Knowledge ids per embedding model, each knowledge base read once."""
    model_of: dict[str, str] = {}
    by_model: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        kb_id = row.knowledge_base_id
        if kb_id not in model_of:
            kb = ctx.knowledge_bases.get(None, kb_id)
            model_of[kb_id] = kb.embedding_model_key if kb is not None else ""
        if model_of[kb_id]:
            by_model[model_of[kb_id]].append(row.id)
    return dict(by_model)
