"""Taking knowledges out of the wiki (spec: cleanupWikiOnKnowledgeDelete, and a reparse's
or cancel's old round).

A delete (``retract_deleted``): tombstones first, so an ingest already running writes
nothing more of them; their pending ingests dropped; the pages they contributed to
reconciled at once (their contributions removed, a page left without sources removed, the
others rebuilt from what remains); then a wiki:retract task queued, which takes out what an
ingest may still have written and has the synthesis model write the rebuilt pages again.
A reparse or cancel (``retract_round``) does the same for the old rounds without a
tombstone: the new round's ingest writes the knowledge anew. A move between knowledge
bases (issue 15) is a ``retract_deleted`` of the old base's pages followed by a new
round's ingest in the new one.

The pages are consistent once the reconcile ran; the task only improves their text, so
its failure loses nothing."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from core.effective_config import resolve
from core.payloads import WikiRetractPayload
from storage.db.repositories.wiki_writes import Retracted
from storage.queue.base import QueueError
from workers import task_specs
from workers.enrichment.wiki.parts import WikiParts, WikiRetractParts
from workers.enrichment.wiki.text import CATALOG_LIMIT, ask_page
from workers.models.errors import ModelUnusable
from workers.pipeline.document import queue_try_of

log = logging.getLogger(__name__)

# Rewrites of one page read again after an ingest wrote it first.
REWRITE_TRIES = 3


def retract_deleted(parts: WikiRetractParts, rows: Sequence[tuple[str, str]]) -> int:
    """Deleting (knowledge id, knowledge base id) ``rows``: step 3's wiki part. Returns
    how many pages it removed."""
    if not rows:
        return 0
    ids = [knowledge_id for knowledge_id, _ in rows]
    parts.wiki_ops.tombstone(rows)
    parts.wiki_ops.drop_for_knowledges(ids)
    retracted = parts.wiki_writes.retract(ids)
    _queue_rewrites(parts, retracted, ids, 0)
    return retracted.removed


def retract_round(parts: WikiRetractParts, knowledge_id: str, up_to_attempt: int) -> None:
    """A reparse or cancel ended the knowledge's rounds up to ``up_to_attempt``: their
    ingests are dropped and their contributions taken out."""
    parts.wiki_ops.drop_for_knowledges([knowledge_id], up_to_attempt=up_to_attempt)
    retracted = parts.wiki_writes.retract([knowledge_id], up_to_attempt=up_to_attempt)
    _queue_rewrites(parts, retracted, [knowledge_id], up_to_attempt)


def rewrite_pages(parts: WikiParts, payload: WikiRetractPayload) -> int:
    """wiki:retract: the knowledges' late contributions taken out, then each rebuilt page
    written again by the synthesis model from its remaining sources; how many were."""
    again = parts.wiki_writes.retract(
        payload.knowledge_ids, up_to_attempt=payload.up_to_attempt or None
    )
    slugs = sorted({*payload.slugs, *again.rebuilt.get(payload.knowledge_base_id, [])})
    kb = parts.knowledge_bases.get(None, payload.knowledge_base_id)
    if kb is None or not slugs:
        return 0
    config = resolve(kb.config or {}, None)
    if not (config.wiki_enabled and config.wiki_model.configured):
        return 0  # the rebuilt pages stay as their contributions
    try:
        model = parts.models.chat(config.wiki_model)
    except ModelUnusable:
        if queue_try_of(parts).is_last_attempt:
            log.warning("wiki pages of %s keep their rebuilt text: no usable model", kb.id)
            return 0
        raise
    assert model is not None
    catalog = parts.wiki_writes.titles(kb.id, CATALOG_LIMIT)
    rewritten = 0
    for slug in slugs:
        for _ in range(REWRITE_TRIES):
            page = parts.wiki_writes.read(kb.id, slug)
            if not page.version or not page.contributions:
                break
            sources = [
                (_title(parts, knowledge_id), text)
                for knowledge_id, text in page.contributions.items()
            ]
            others = [(s, name) for s, name in catalog if s != slug]
            body = ask_page(model, page.title, "", sources, others)
            if parts.wiki_writes.rewrite(kb.id, slug, body, page.version):
                rewritten += 1
                break
    return rewritten


def _title(parts: WikiParts, knowledge_id: str) -> str:
    row = parts.knowledges.get(knowledge_id, None)
    return (row.title or row.file_name or "") if row is not None else ""


def _queue_rewrites(
    parts: WikiRetractParts, retracted: Retracted, knowledge_ids: list[str], up_to_attempt: int
) -> None:
    for kb_id, slugs in retracted.rebuilt.items():
        payload = WikiRetractPayload(
            knowledge_base_id=kb_id,
            knowledge_ids=knowledge_ids,
            slugs=slugs,
            up_to_attempt=up_to_attempt,
        )
        try:
            parts.queue.enqueue(task_specs.wiki_retract(payload))
        except QueueError as exc:  # the pages are consistent already
            log.warning("wiki retract of knowledge base %s not queued: %s", kb_id, exc)
