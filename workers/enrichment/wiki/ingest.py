"""wiki:ingest — a knowledge base's pending wiki ingests written into its pages (spec:
TypeWikiIngest, «Подстраховка очереди Wiki»), one debounced task per knowledge base and
window (task_specs.wiki_ingest), claiming the pending ingests in batches of ``CLAIM_BATCH``
until none is left.

At the start: a knowledge base whose wiki is off, or that names no synthesis model (none
ever, or removed), has its unclaimed ingests cleared and their rounds released (their
wiki slot ends, failed with why); a synthesis model that cannot be built (an endpoint the
SSRF rules refuse, a misconfiguration) fails the try, and the last try releases them the
same way; a model unavailable fails the try (the queue tries again).

Each ingest reads its round's text (the summary, when written, and the text chunks), asks
the model for the document's main topics with what it says of each, and merges each into
its page (``text.ask_page``), written with the knowledge's contribution kept apart
(``WikiPageWriter.write``: only while the round is current and no tombstone says the
knowledge was deleted). Its end counts the round's wiki slot down once (``rounds``)."""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta
from typing import Any

from core.effective_config import resolve
from core.payloads import WikiIngestPayload
from core.statuses import ChunkType, SummaryStatus
from core.wiki_markdown import page_body
from storage.db.models import Knowledge, WikiPendingOp, utcnow
from storage.db.repositories.wiki_writes import Contribution, WriteOutcome
from workers import task_specs
from workers.enrichment.wiki import rounds
from workers.enrichment.wiki.parts import WikiParts
from workers.enrichment.wiki.text import CATALOG_LIMIT, ask_page, ask_topics
from workers.models.errors import ModelError, ModelUnusable
from workers.models.protocols import ChatModel
from workers.pipeline.chunks.indexing import knowledge_title
from workers.pipeline.document import queue_try_of

log = logging.getLogger(__name__)

WIKI_DISABLED = "WIKI_DISABLED"
NO_WIKI_MODEL = "NO_WIKI_MODEL"
WIKI_FAILED = "WIKI_FAILED"
SUPERSEDED = "SUPERSEDED"
# Ingests one claim takes: the rest wait for the next claim (or another task's).
CLAIM_BATCH = 8
# A claim older than a try's time limit belongs to a task that died.
CLAIM_LEASE_S = task_specs.WIKI_TIMEOUT_S
# Merges of one page read again after another task wrote it first.
MERGE_TRIES = 5


class PageContended(Exception):
    """A page kept changing under the merge: the try fails and the queue tries again."""


def ingest_wiki(parts: WikiParts, payload: WikiIngestPayload) -> int:
    """Write the base's pending ingests; how many rounds this try ended or released."""
    kb = parts.knowledge_bases.get(None, payload.knowledge_base_id)
    if kb is None:  # its operations went with it
        return 0
    config = resolve(kb.config or {}, None)
    queue_try = queue_try_of(parts)
    claimer = queue_try.job_id or uuid.uuid4().hex
    lease = utcnow() - timedelta(seconds=CLAIM_LEASE_S)
    if not config.wiki_enabled:
        return _release_all(parts, kb.id, claimer, lease, WIKI_DISABLED, "the wiki is off")
    if not config.wiki_model.configured:
        message = "the knowledge base names no synthesis model (wiki.synthesis_model)"
        return _release_all(parts, kb.id, claimer, lease, NO_WIKI_MODEL, message)
    try:
        model = parts.models.chat(config.wiki_model)
    except ModelUnusable as exc:
        if not queue_try.is_last_attempt:
            raise
        return _release_all(parts, kb.id, claimer, lease, exc.code, str(exc))
    assert model is not None  # configured
    ended = 0
    while ops := parts.wiki_ops.claim(kb.id, claimer, limit=CLAIM_BATCH, expired_before=lease):
        for op in ops:
            ended += _ingest(parts, model, config.wiki_model.model, op, queue_try.is_last_attempt)
    return ended


def ingest_failed(parts: WikiParts, payload: WikiIngestPayload, error: str) -> None:
    """Dead letter: the last try crashed or timed out; the rounds it held are released."""
    # Its own claims are not known here (no try runs): they expire and are taken over.
    lease = utcnow() - timedelta(seconds=CLAIM_LEASE_S)
    _release_all(parts, payload.knowledge_base_id, None, lease, WIKI_FAILED, error)


def _release_all(
    parts: WikiParts, kb_id: str, claimer: str | None, lease: datetime, code: str, message: str
) -> int:
    ops = parts.wiki_ops.take_unclaimed(kb_id, lease, claimer=claimer)
    for op in ops:
        rounds.release(parts, op, code, message)
    return len(ops)


def _ingest(
    parts: WikiParts, model: ChatModel, model_name: str, op: WikiPendingOp, last_try: bool
) -> int:
    row = rounds.current_round(parts, op)
    if row is None:  # an older round's, or one gone: it writes and releases nothing
        parts.wiki_ops.remove(op.id)
        return 0
    tracker = rounds.begin(parts, row, op.attempt, {"model": model_name, "ingest": op.id})
    try:
        outputs = _write_pages(parts, model, row, op.attempt)
    except (ModelError, PageContended) as exc:
        code = exc.code if isinstance(exc, ModelError) else WIKI_FAILED
        if not last_try:
            tracker.fail(rounds.STEP, code, f"{exc} (tried again)")
            raise
        tracker.fail(rounds.STEP, code, str(exc))
        ended = rounds.end_slot(parts, row, op.attempt)
        parts.wiki_ops.remove(op.id)
        return int(ended)
    # The slot ends before the op goes: an op a crash leaves finds its slot ended.
    ended = outputs is not None and rounds.end_slot(parts, row, op.attempt)
    parts.wiki_ops.remove(op.id)
    if not ended or outputs is None:
        tracker.fail(rounds.STEP, SUPERSEDED, "the round was reparsed, cancelled or deleted")
        return 0
    tracker.end(rounds.STEP, outputs)
    return 1


def _write_pages(
    parts: WikiParts, model: ChatModel, row: Knowledge, attempt: int
) -> dict[str, Any] | None:
    """Every topic of the round merged into its page; the step's outputs, None when the
    round stopped being current (what was written stays for its retract to take out)."""
    title = knowledge_title(row)
    catalog = parts.wiki_writes.titles(row.knowledge_base_id, CATALOG_LIMIT)
    topics = ask_topics(model, title, document_text(parts, row, attempt), catalog)
    created: list[str] = []
    updated: list[str] = []
    for topic in topics:
        for _ in range(MERGE_TRIES):
            page = parts.wiki_writes.read(row.knowledge_base_id, topic.slug)
            others = [(slug, name) for slug, name in catalog if slug != topic.slug]
            body = ask_page(
                model,
                page.title or topic.title,
                page_body(page.content),
                [(title, topic.contribution)],
                others,
            )
            outcome = parts.wiki_writes.write(
                Contribution(
                    tenant_id=row.tenant_id,
                    knowledge_base_id=row.knowledge_base_id,
                    knowledge_id=row.id,
                    attempt=attempt,
                    slug=topic.slug,
                    title=page.title or topic.title,
                    body=body,
                    contribution=topic.contribution,
                ),
                page.version,
            )
            if outcome is WriteOutcome.STALE:
                return None
            if outcome is WriteOutcome.WRITTEN:
                (updated if page.version else created).append(topic.slug)
                break
        else:
            raise PageContended(f"the page {topic.slug!r} kept changing during the merge")
    return {"topics": len(topics), "created": created, "updated": updated}


def document_text(parts: WikiParts, row: Knowledge, attempt: int) -> str:
    """The round's summary (when written) and its enabled text chunks, in order."""
    chunks = parts.chunks.list_of_types(row.id, attempt, [ChunkType.TEXT])
    text = "\n\n".join(c.content for c in chunks if c.is_enabled and c.content.strip())
    if row.summary_status == SummaryStatus.COMPLETED and row.summary:
        return f"Summary: {row.summary}\n\n{text}"
    return text
