"""The FAQ write layer (workers.faq.entries) over a real database (both backends), milvus-lite
and a real embeddings endpoint: entries with their questions and index rows, by index mode."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest

from core.errors import AlreadyExists
from core.faq_entry import clean_entry
from core.faq_text import faq_content_hash, normalize_faq_text
from core.statuses import ChunkType, KnowledgeBaseType, KnowledgeType
from storage.db.models import KnowledgeBase
from storage.db.repositories.faq_entries import NewFaqEntry
from tests.support.openai_embeddings import EmbeddingServer
from workers.context import WorkerContext
from workers.faq.entries import (
    create_entries,
    delete_all,
    delete_entries,
    ensure_faq_knowledge,
    find_conflicts,
    set_entries_enabled,
    update_entry,
)

# "OPENING  times" in full-width letters: normalised, it is "opening times".
FULL_WIDTH_OPENING = "\uff2f\uff30\uff25\uff2e\uff29\uff2e\uff27  times"
SEPARATE = {
    "index_mode": "FAQ_INDEX_MODE_QUESTION_ONLY",
    "question_index_mode": "FAQ_QUESTION_INDEX_MODE_SEPARATE",
}
COMBINED_QA = {
    "index_mode": "FAQ_INDEX_MODE_QUESTION_ANSWER",
    "question_index_mode": "FAQ_QUESTION_INDEX_MODE_COMBINED",
}


def faq_kb(ctx: WorkerContext, embeddings: EmbeddingServer, faq: dict[str, Any]) -> KnowledgeBase:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    return ctx.knowledge_bases.create(
        tenant,
        f"faq-{uuid.uuid4().hex[:6]}",
        type=KnowledgeBaseType.FAQ,
        config={"embedding": embeddings.kb_config(), "faq": faq},
        embedding_model_key=embeddings.model_key,
    )


def rows_of(ctx: WorkerContext, kb: KnowledgeBase) -> list[str]:
    knowledge = ctx.faq_entries.faq_knowledge(kb.id)
    assert knowledge is not None
    return ctx.index.ids_for_knowledge(kb.embedding_model_key, knowledge.id)


def test_one_faq_knowledge_even_when_first_uses_race(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = faq_kb(ctx, embeddings, SEPARATE)
    got: list[str] = []
    threads = [
        threading.Thread(target=lambda: got.append(ensure_faq_knowledge(ctx, kb).id))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == 1
    knowledge = ctx.faq_entries.faq_knowledge(kb.id)
    assert knowledge is not None and knowledge.type == KnowledgeType.FAQ


def test_separate_rows_and_incremental_update(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = faq_kb(ctx, embeddings, SEPARATE)
    entry = clean_entry(
        " How do I reset my password? ",
        ["Forgot password", "Password reset", "forgot PASSWORD "],
        ["How do I reset my router?"],
        ["Use the reset link.", "Call support."],
    )
    assert entry.similar_questions == ("Forgot password", "Password reset")
    [chunk] = create_entries(ctx, kb, [NewFaqEntry(entry)])
    assert chunk.chunk_type == ChunkType.FAQ
    assert chunk.content_hash == faq_content_hash(
        "How do I reset my password?",
        entry.similar_questions,
        entry.negative_questions,
        entry.answers,
    )
    assert chunk.meta["negative_questions"] == ["How do I reset my router?"]
    assert sorted(rows_of(ctx, kb)) == sorted([chunk.id, f"{chunk.id}-1", f"{chunk.id}-2"])

    before = len(embeddings.embedded())
    changed = clean_entry(
        entry.standard_question, ["Forgot password", "Lost my password"], [], entry.answers
    )
    update_entry(ctx, kb, chunk.id, changed)
    # Only the similar question that changed was embedded again.
    assert embeddings.embedded()[before:] == ["Lost my password"]
    assert sorted(rows_of(ctx, kb)) == sorted([chunk.id, f"{chunk.id}-1", f"{chunk.id}-2"])

    update_entry(ctx, kb, chunk.id, clean_entry(entry.standard_question, [], [], ["x"]))
    assert rows_of(ctx, kb) == [chunk.id]


def test_duplicates_are_refused_naming_the_entry(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = faq_kb(ctx, embeddings, COMBINED_QA)
    [first] = create_entries(
        ctx, kb, [NewFaqEntry(clean_entry("What are your hours?", ["Opening times"], [], ["9-5"]))]
    )
    [second] = create_entries(
        ctx, kb, [NewFaqEntry(clean_entry("Where are you?", [], [], ["Berlin"]))]
    )
    with pytest.raises(AlreadyExists) as raised:
        create_entries(
            ctx, kb, [NewFaqEntry(clean_entry("Other", [FULL_WIDTH_OPENING], [], ["a"]))]
        )
    assert raised.value.resource_name == first.id
    # An update may keep its own questions, not take another entry's.
    update_entry(ctx, kb, first.id, clean_entry("What are your hours?", [], [], ["9-6"]))
    with pytest.raises(AlreadyExists) as raised:
        update_entry(ctx, kb, second.id, clean_entry("what are your HOURS?", [], [], ["b"]))
    assert raised.value.resource_name == first.id
    text = normalize_faq_text("Where are you?")
    assert find_conflicts(ctx, kb, [clean_entry("Where are you?", [], [], ["c"])])[0].text == text
    assert (
        ctx.faq_entries.by_content_hash(kb.id, [second.content_hash])[second.content_hash].id
        == second.id
    )


def test_enable_delete_and_delete_all(ctx: WorkerContext, embeddings: EmbeddingServer) -> None:
    kb = faq_kb(ctx, embeddings, SEPARATE)
    chunks = create_entries(
        ctx,
        kb,
        [NewFaqEntry(clean_entry(f"Question {i}?", [f"Q{i} again"], [], ["A"])) for i in range(5)],
        batch_size=2,
    )
    assert len(rows_of(ctx, kb)) == 10
    assert set_entries_enabled(ctx, kb, [chunks[0].id, "nope"], False) == [chunks[0].id]
    assert ctx.faq_entries.get(kb.id, chunks[0].id).is_enabled is False  # type: ignore[union-attr]
    assert delete_entries(ctx, kb, [chunks[1].id]) == [chunks[1].id]
    assert len(rows_of(ctx, kb)) == 8
    assert delete_all(ctx, kb) == 4
    assert rows_of(ctx, kb) == []
    assert ctx.faq_entries.page(kb.id) == ([], 0)
