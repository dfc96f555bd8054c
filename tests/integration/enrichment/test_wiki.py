"""The wiki (wiki:ingest, wiki:retract) through real parts: a migrated PostgreSQL (and
SQLite), milvus-lite, the lite queue, a real embeddings server and a real chat-completions
server answering the synthesis model's JSON-schema questions. Documents of a knowledge base
with the wiki on become pages (one per topic, the documents' contributions kept per
knowledge); deletes reconcile the pages; a stale round's ingest releases nothing; a wiki
that is off, or whose model is missing or refused, releases its documents."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import update

from core.payloads import WikiIngestPayload
from core.statuses import ParseStatus
from server.services.cancel import CancelService
from server.services.identity import Identity
from storage.db.models import Knowledge
from storage.queue.lite import LiteTaskQueue
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.wiki_pages import PageView, read_pages
from workers import task_specs
from workers.context import WorkerContext, install_context
from workers.enrichment.wiki.ingest import ingest_wiki
from workers.lifecycle.deletion import delete_marked, mark_deleting
from workers.lifecycle.enqueue import document_process_payload
from workers.lifecycle.reparse import restart_processing
from workers.wiki_request import request_wiki_ingest

HARBOUR = "Varnholt Harbour"
PIER = "North Pier"
_CURRENT = re.compile(r"Current text:\n(.*?)\n\nNew material:\n(.*)", re.S)
_EXISTING = re.compile(r"^- ([^:\n]+): ", re.M)


@pytest.fixture(autouse=True)
def installed(ctx: WorkerContext) -> None:
    install_context(ctx)


def synthesis(request: ChatRequest) -> str:
    """The synthesis model: a document's topics are the harbour (every document) and the
    pier (a document naming it), each contribution its sentences about it; a page's body
    is its current text and each new contribution, one line each, linking the other
    pages."""
    asked = request.texts[-1]
    properties = (request.schema or {}).get("properties", {})
    if "topics" in properties:
        existing = set(_EXISTING.findall(asked.split("\n\nDocument: ")[0]))
        text = asked.split("\n\nDocument: ", 1)[1].split("\n\n", 1)[1]
        sentences = [s.strip() for s in text.replace("\n", " ").split(".") if s.strip()]
        topics = [
            {
                "title": name,
                "existing_slug": slug if slug in existing else "",
                "contribution": ". ".join(s for s in sentences if key in s) + ".",
            }
            for name, slug, key in (
                (HARBOUR, "varnholt-harbour", "harbour"),
                (PIER, "north-pier", "pier"),
            )
            if any(key in s for s in sentences)
        ]
        return json.dumps({"topics": topics})
    found = _CURRENT.search(asked)
    assert found is not None, asked
    current, material = found[1], found[2]
    lines = [] if current.startswith("(empty") else current.splitlines()
    lines += [m for m in material.splitlines() if m and not m.startswith("From the document")]
    links = re.findall(r"\[[^]]+\]\(wiki://[^)]+\)", asked.split("Current text:")[0])
    return json.dumps({"body": "\n".join(lines + links)})


def model_config(chat: ChatServer | None, base_url: str = "") -> dict[str, Any]:
    url = chat.base_url if chat is not None else base_url
    return {"provider": "openai", "model": "synth", "base_url": url}


INDEXED = {"vector_enabled": True, "keyword_enabled": True}
WIKI_ON = {"indexing": {**INDEXED, "wiki_enabled": True}}
WIKI_OFF = {"indexing": INDEXED}


def new_kb(
    ctx: WorkerContext,
    embeddings: EmbeddingServer,
    wiki_model: dict[str, Any] | None,
    *,
    wiki_enabled: bool = True,
) -> Any:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    config: dict[str, Any] = {
        "embedding": embeddings.kb_config(),
        **(WIKI_ON if wiki_enabled else WIKI_OFF),
    }
    if wiki_model is not None:
        config["wiki"] = {"synthesis_model": wiki_model}
    return ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config=config,
        embedding_model_key=embeddings.model_key,
        storage_backend_id="",
    )


def upload(ctx: WorkerContext, kb: Any, title: str, text: str) -> Knowledge:
    row = ctx.knowledges.create(
        tenant_id=kb.tenant_id,
        knowledge_base_id=kb.id,
        type="manual",
        title=title,
        content=text,
        parse_status="pending",
        enable_status="disabled",
        attempt=1,
    )
    ctx.queue.enqueue(task_specs.document_process(ctx.settings, document_process_payload(row, 1)))
    return row


def settle(ctx: WorkerContext) -> None:
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=180)


def fresh(ctx: WorkerContext, knowledge_id: str) -> Knowledge:
    row = ctx.knowledges.get(knowledge_id, None)
    assert row is not None
    return row


def pages(ctx: WorkerContext, kb_id: str) -> dict[str, PageView]:
    return read_pages(ctx.db, kb_id)


def finalizing_round(ctx: WorkerContext, row: Knowledge, attempt: int) -> None:
    """Round ``attempt`` of ``row`` finalizing with its wiki slot to end, its ingest pending
    (no task queued for it)."""
    with ctx.db.session() as session:
        session.execute(
            update(Knowledge)
            .where(Knowledge.id == row.id)
            .values(attempt=attempt, parse_status=ParseStatus.FINALIZING, pending_subtasks_count=1)
        )
    ctx.wiki_ops.add_ingest(row.tenant_id, row.knowledge_base_id, row.id, attempt)


def wiki_step(ctx: WorkerContext, knowledge_id: str, attempt: int = 1) -> Any:
    spans = {s.name: s for s in ctx.spans.list(knowledge_id, attempt, tenant_id=None)}
    return spans["postprocess.wiki"]


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    with ChatServer(answer=synthesis) as server:
        yield server


def test_two_documents_on_one_topic_make_one_page_with_both_sources(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    kb = new_kb(ctx, embeddings, model_config(chat))
    crane = upload(ctx, kb, "Crane log", "The Varnholt harbour crane lifted 12 crates of salt.")
    settle(ctx)
    pier = upload(
        ctx, kb, "Pier notes", "The harbour opened in 1850. The pier was built of oak in 1901."
    )
    settle(ctx)

    for row in (crane, pier):
        done = fresh(ctx, row.id)
        assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
        step = wiki_step(ctx, row.id)
        assert step.status == "done"
        assert step.parent_id is not None
    assert wiki_step(ctx, crane.id).output["created"] == ["varnholt-harbour"]
    assert wiki_step(ctx, pier.id).output == {
        "topics": 2,
        "created": ["north-pier"],
        "updated": ["varnholt-harbour"],
    }
    found = pages(ctx, kb.id)
    assert set(found) == {"varnholt-harbour", "north-pier"}
    harbour = found["varnholt-harbour"]
    assert {s.knowledge_id for s in harbour.sources} == {crane.id, pier.id}
    assert harbour.page.source_knowledge_ids == sorted([crane.id, pier.id])
    assert harbour.page.version == 2
    content = harbour.page.content
    assert content.startswith(f"# {HARBOUR}\n")
    assert "crane lifted 12 crates" in content and "opened in 1850" in content
    assert f"[Crane log](knowledge://{crane.id})" in content
    assert f"[Pier notes](knowledge://{pier.id})" in content
    # The pier's page was written knowing the harbour's and links to it.
    assert found["north-pier"].links == ["varnholt-harbour"]
    assert [s.knowledge_id for s in found["north-pier"].sources] == [pier.id]


def test_a_delete_takes_its_contributions_out_and_removes_pages_left_without_sources(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    kb = new_kb(ctx, embeddings, model_config(chat))
    crane = upload(ctx, kb, "Crane log", "The Varnholt harbour crane lifted 12 crates of salt.")
    settle(ctx)
    pier = upload(ctx, kb, "Pier notes", "The harbour opened in 1850. The pier was built in 1901.")
    settle(ctx)
    assert set(pages(ctx, kb.id)) == {"varnholt-harbour", "north-pier"}

    delete_marked(ctx, mark_deleting(ctx, [pier.id]))
    # The reconcile ran in the delete; the retract task writes the page again.
    settle(ctx)

    found = pages(ctx, kb.id)
    assert set(found) == {"varnholt-harbour"}, "the pier page's only source was deleted"
    harbour = found["varnholt-harbour"]
    assert [s.knowledge_id for s in harbour.sources] == [crane.id]
    assert "crane lifted 12 crates" in harbour.page.content
    assert "1850" not in harbour.page.content and pier.id not in harbour.page.content
    assert ctx.knowledges.get(pier.id, None) is None
    # The rewrite came from the model, from the remaining contribution alone.
    rewrite = chat.log()[-1].texts[-1]
    assert "(empty: a new page)" in rewrite and "1850" not in rewrite


def test_an_ingest_of_an_older_round_writes_nothing_and_releases_nothing(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    kb = new_kb(ctx, embeddings, model_config(chat))
    row = upload(ctx, kb, "Crane log", "The Varnholt harbour crane lifted 12 crates of salt.")
    settle(ctx)
    # Round 2 is finalizing, its wiki slot still to end; round 1's ingest turns up late.
    finalizing_round(ctx, row, 2)
    ctx.wiki_ops.drop_for_knowledges([row.id])
    ctx.wiki_ops.add_ingest(row.tenant_id, kb.id, row.id, 1)
    requests = len(chat.log())

    assert ingest_wiki(ctx, WikiIngestPayload(kb.id)) == 0

    stale = fresh(ctx, row.id)
    assert (stale.parse_status, stale.pending_subtasks_count) == (ParseStatus.FINALIZING, 1)
    assert len(chat.log()) == requests, "nothing was asked for the old round"
    assert ctx.wiki_ops.oldest_ingest(row.id, 1) is None, "the stale ingest is dropped"

    ctx.wiki_ops.add_ingest(row.tenant_id, kb.id, row.id, 2)
    assert ingest_wiki(ctx, WikiIngestPayload(kb.id)) == 1
    done = fresh(ctx, row.id)
    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)


def test_a_reparse_retracts_the_old_rounds_contributions_and_the_new_round_writes_them(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    kb = new_kb(ctx, embeddings, model_config(chat))
    row = upload(ctx, kb, "Pier notes", "The harbour opened in 1850. The pier was built in 1901.")
    settle(ctx)
    assert set(pages(ctx, kb.id)) == {"varnholt-harbour", "north-pier"}

    ctx.knowledges.update_fields(row.id, content="The harbour crane lifted 9 crates.")
    restart_processing(ctx, fresh(ctx, row.id))
    settle(ctx)

    found = pages(ctx, kb.id)
    assert set(found) == {"varnholt-harbour"}
    [source] = found["varnholt-harbour"].sources
    assert (source.knowledge_id, source.attempt) == (row.id, 2)
    assert "9 crates" in found["varnholt-harbour"].page.content
    assert "1850" not in found["varnholt-harbour"].page.content


def test_no_synthesis_model_releases_the_document(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = new_kb(ctx, embeddings, None)
    row = upload(ctx, kb, "Crane log", "The Varnholt harbour crane lifted 12 crates of salt.")
    settle(ctx)

    done = fresh(ctx, row.id)
    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    step = wiki_step(ctx, row.id)
    assert (step.status, step.error_code) == ("failed", "NO_WIKI_MODEL")
    assert pages(ctx, kb.id) == {}


def test_a_wiki_turned_off_before_its_ingest_releases_the_document(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    kb = new_kb(ctx, embeddings, model_config(chat))
    row = upload(ctx, kb, "Crane log", "The Varnholt harbour crane lifted 12 crates of salt.")
    settle(ctx)
    finalizing_round(ctx, row, 2)
    ctx.knowledge_bases.update(None, kb.id, config={**kb.config, **WIKI_OFF})

    assert ingest_wiki(ctx, WikiIngestPayload(kb.id)) == 1

    done = fresh(ctx, row.id)
    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    step = wiki_step(ctx, row.id, 2)
    assert (step.status, step.error_code) == ("failed", "WIKI_DISABLED")


def test_a_synthesis_model_the_ssrf_rules_refuse_releases_on_the_last_try(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    refused = model_config(None, "http://169.254.169.254/v1")
    kb = new_kb(ctx, embeddings, refused, wiki_enabled=False)
    row = upload(ctx, kb, "Crane log", "The Varnholt harbour crane lifted 12 crates of salt.")
    settle(ctx)
    finalizing_round(ctx, row, 2)
    ctx.knowledge_bases.update(None, kb.id, config={**kb.config, **WIKI_ON})

    # The queue's own tries, without their waits: tries 1 and 2 fail, the last releases.
    spec = replace(
        task_specs.wiki_ingest(WikiIngestPayload(kb.id), int(time.time())), retry_intervals=()
    )
    ctx.queue.enqueue(spec)
    settle(ctx)

    done = fresh(ctx, row.id)
    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    step = wiki_step(ctx, row.id, 2)
    assert (step.status, step.error_code) == ("failed", "MODEL_ENDPOINT_REFUSED")
    assert step.input["queue_try"] == spec.max_attempts
    assert ctx.wiki_ops.oldest_ingest(row.id, 2) is None


def test_an_unreadable_answer_on_the_last_try_ends_the_round_with_the_error(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    kb = new_kb(ctx, embeddings, model_config(chat), wiki_enabled=False)
    row = upload(ctx, kb, "Crane log", "The Varnholt harbour crane lifted 12 crates of salt.")
    settle(ctx)
    finalizing_round(ctx, row, 2)
    ctx.knowledge_bases.update(None, kb.id, config={**kb.config, **WIKI_ON})
    chat.answer = lambda request: "not json"

    # Called outside a queue: its one try is the last.
    assert ingest_wiki(ctx, WikiIngestPayload(kb.id)) == 1

    done = fresh(ctx, row.id)
    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    step = wiki_step(ctx, row.id, 2)
    assert (step.status, step.error_code) == ("failed", "MODEL_UNAVAILABLE")
    assert pages(ctx, kb.id) == {}


def test_an_answer_with_no_topics_ends_the_round_with_no_page(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    chat.answer = lambda request: '{"topics": []}'
    kb = new_kb(ctx, embeddings, model_config(chat))
    row = upload(ctx, kb, "Crane log", "The Varnholt harbour crane lifted 12 crates of salt.")
    settle(ctx)

    assert fresh(ctx, row.id).parse_status == ParseStatus.COMPLETED
    assert wiki_step(ctx, row.id).output == {"topics": 0, "created": [], "updated": []}
    assert pages(ctx, kb.id) == {}


def test_a_cancel_takes_the_rounds_contributions_out(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat: ChatServer
) -> None:
    kb = new_kb(ctx, embeddings, model_config(chat))
    kept = upload(ctx, kb, "Crane log", "The Varnholt harbour crane lifted 12 crates of salt.")
    settle(ctx)
    row = upload(ctx, kb, "Pier notes", "The harbour opened in 1850. The pier was built in 1901.")
    settle(ctx)
    # The round is still finalizing (another subtask to go) when the user cancels it.
    with ctx.db.session() as session:
        session.execute(
            update(Knowledge)
            .where(Knowledge.id == row.id)
            .values(parse_status=ParseStatus.FINALIZING, pending_subtasks_count=1)
        )

    CancelService(ctx).cancel(Identity(kb.tenant_id, is_admin=False), row.id)
    settle(ctx)

    found = pages(ctx, kb.id)
    assert set(found) == {"varnholt-harbour"}
    assert [s.knowledge_id for s in found["varnholt-harbour"].sources] == [kept.id]
    assert "1850" not in found["varnholt-harbour"].page.content


def test_a_batch_of_uploads_loses_no_document_on_a_shared_page(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    with ChatServer(answer=synthesis, delay_s=0.05) as chat:
        kb = new_kb(ctx, embeddings, model_config(chat))
        rows = [
            upload(ctx, kb, f"Log {n}", f"The Varnholt harbour crane lifted {n + 10} crates.")
            for n in range(4)
        ]
        settle(ctx)

    assert {fresh(ctx, r.id).parse_status for r in rows} == {ParseStatus.COMPLETED}
    harbour = pages(ctx, kb.id)["varnholt-harbour"]
    assert {s.knowledge_id for s in harbour.sources} == {r.id for r in rows}
    for n in range(4):
        assert f"lifted {n + 10} crates" in harbour.page.content
    # Each document merged once, none over another's merge.
    assert harbour.page.version == 4


def test_the_ingest_requests_of_one_window_share_one_task(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = new_kb(ctx, embeddings, None)
    # Windows long past: their tasks start at once (and find nothing pending).
    first = request_wiki_ingest(ctx.queue, kb.id, 10.0, now=lambda: 1_000.0)
    same = request_wiki_ingest(ctx.queue, kb.id, 10.0, now=lambda: 1_009.9)
    after = request_wiki_ingest(ctx.queue, kb.id, 10.0, now=lambda: 1_010.0)
    settle(ctx)

    assert first == same == f"wiki-ingest-{kb.id}-100"
    assert after == f"wiki-ingest-{kb.id}-101"
