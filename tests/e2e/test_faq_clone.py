"""Cloning an FAQ knowledge base over real gRPC, in lite and full mode, in each index mode.

A source with three entries (one tagged, one disabled) is cloned into a new knowledge base:
the target holds the same entries (its own tag of the same name), finds them with their
answers, and the embedding server (which counts every request) is asked nothing. Then the
source changes (an entry added, one deleted, one disabled, one retagged with another answer
strategy, one's answer edited) and is cloned again into the same target: only that
difference is written (the edited entry's old content removed, its new content added), the
target matches the source exactly, and still nothing is embedded."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from sluice.v1 import (
    config_pb2,
    faq_pb2,
    faq_pb2_grpc,
    knowledge_base_pb2,
    knowledge_base_pb2_grpc,
    search_pb2,
    search_pb2_grpc,
    tag_pb2,
    tag_pb2_grpc,
)
from sluice_client import FailedPrecondition, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer

ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
QUESTION_ONLY = config_pb2.FAQ_INDEX_MODE_QUESTION_ONLY
QUESTION_ANSWER = config_pb2.FAQ_INDEX_MODE_QUESTION_ANSWER
COMBINED = config_pb2.FAQ_QUESTION_INDEX_MODE_COMBINED
SEPARATE = config_pb2.FAQ_QUESTION_INDEX_MODE_SEPARATE
KEYWORD = search_pb2.SEARCH_MODE_KEYWORD
COMPLETED = knowledge_base_pb2.JOB_STATUS_COMPLETED
RANDOM = faq_pb2.ANSWER_STRATEGY_RANDOM

# What identifies an entry across knowledge bases: its content, state and tag's name.
Entry = tuple[str, tuple[str, ...], tuple[str, ...], int, bool, str]


class Api:
    def __init__(self, channel: grpc.Channel) -> None:
        self.faq = faq_pb2_grpc.FAQServiceStub(channel)
        self.kbs = knowledge_base_pb2_grpc.KnowledgeBaseServiceStub(channel)
        self.search = search_pb2_grpc.SearchServiceStub(channel)
        self.tags = tag_pb2_grpc.TagServiceStub(channel)

    def faq_kb(
        self,
        embeddings: EmbeddingServer,
        index_mode: config_pb2.FAQIndexMode,
        questions: config_pb2.FAQQuestionIndexMode,
    ) -> str:
        config = config_pb2.KnowledgeBaseConfig(
            embedding=config_pb2.ModelConfig(
                provider="openai",
                model=embeddings.model,
                base_url=embeddings.base_url,
                dimensions=DIMENSION,
            ),
            faq=config_pb2.FAQConfig(index_mode=index_mode, question_index_mode=questions),
        )
        request = knowledge_base_pb2.CreateKnowledgeBaseRequest(
            name=f"faq-clone-{uuid.uuid4().hex[:8]}",
            type=knowledge_base_pb2.KNOWLEDGE_BASE_TYPE_FAQ,
            config=config,
        )
        return str(self.kbs.CreateKnowledgeBase(request).knowledge_base.id)

    def tag(self, kb_id: str, name: str) -> str:
        request = tag_pb2.CreateTagRequest(knowledge_base_id=kb_id, name=name)
        return str(self.tags.CreateTag(request).tag.id)

    def tag_names(self, kb_id: str) -> dict[str, str]:
        tags = self.tags.ListTags(tag_pb2.ListTagsRequest(knowledge_base_id=kb_id)).tags
        return {tag.id: tag.name for tag in tags}

    def create(self, kb_id: str, *, disabled: bool = False, **content: Any) -> faq_pb2.FAQEntry:
        request = faq_pb2.CreateFAQEntryRequest(
            knowledge_base_id=kb_id, content=faq_pb2.FAQEntryContent(**content), disabled=disabled
        )
        return self.faq.CreateFAQEntry(request).entry

    def entries(self, kb_id: str) -> list[faq_pb2.FAQEntry]:
        request = faq_pb2.ListFAQEntriesRequest(knowledge_base_id=kb_id, page_size=1000)
        return list(self.faq.ListFAQEntries(request).entries)

    def described(self, kb_id: str) -> set[Entry]:
        names = self.tag_names(kb_id)
        return {
            (
                e.content.standard_question,
                tuple(e.content.similar_questions),
                tuple(e.content.answers),
                e.content.answer_strategy,
                e.enabled,
                names.get(e.content.tag_id, ""),
            )
            for e in self.entries(kb_id)
        }

    def clone(self, source_id: str, target_id: str = "") -> knowledge_base_pb2.CloneProgress:
        started = self.kbs.CloneKnowledgeBase(
            knowledge_base_pb2.CloneKnowledgeBaseRequest(source_id=source_id, target_id=target_id)
        )
        watch = knowledge_base_pb2.WatchCloneProgressRequest(job_id=started.job_id)
        seen = [reply.progress for reply in self.kbs.WatchCloneProgress(watch, timeout=120)]
        assert [p.done for p in seen] == sorted(p.done for p in seen)
        read = knowledge_base_pb2.GetCloneProgressRequest(job_id=started.job_id)
        progress = self.kbs.GetCloneProgress(read).progress
        assert progress == seen[-1]
        assert progress.target_id == started.target_id
        return progress

    def found(self, kb_id: str, query: str) -> list[search_pb2.SearchResult]:
        request = search_pb2.SearchRequest(
            query=query, knowledge_base_ids=[kb_id], top_k=5, mode=KEYWORD
        )
        return list(self.search.Search(request).results)


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """The embedding server listens on loopback, which the SSRF policy lets through here."""
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"faq-clone-{request.param}"), extra_env=ENV) as running:
        yield running


@pytest.fixture(scope="module")
def api(stack: Stack) -> Iterator[Api]:
    with grpc.insecure_channel(stack.target) as channel:
        yield Api(channel)


@pytest.fixture(scope="module")
def embeddings() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


@pytest.mark.parametrize(
    ("index_mode", "questions"), [(QUESTION_ONLY, COMBINED), (QUESTION_ANSWER, SEPARATE)]
)
def test_faq_clone_copies_entries_without_embedding_and_syncs_the_difference(
    api: Api,
    embeddings: EmbeddingServer,
    index_mode: config_pb2.FAQIndexMode,
    questions: config_pb2.FAQQuestionIndexMode,
) -> None:
    source = api.faq_kb(embeddings, index_mode, questions)
    billing = api.tag(source, "billing")
    refund = api.create(
        source,
        standard_question="How do I get a refund?",
        similar_questions=["Money back", "Return my payment"],
        answers=["Refunds reach your card within five quokkafold days."],
        tag_id=billing,
    )
    hours = api.create(
        source, standard_question="When are you open?", answers=["Nine to five pangolin time."]
    )
    legacy = api.create(
        source,
        standard_question="Do you ship by zeppelin?",
        answers=["Only on Tuesdays."],
        disabled=True,
    )
    card = api.create(
        source, standard_question="Can I pay by card?", answers=["Yes, every marmoset card."]
    )

    asked = len(embeddings.log())
    first = api.clone(source)
    assert first.status == COMPLETED, first.error_message
    assert (first.total, first.done, first.added, first.removed, first.failed) == (4, 4, 4, 0, 0)
    assert len(embeddings.log()) == asked, "a clone embeds nothing"
    target = first.target_id
    assert api.described(target) == api.described(source)
    assert {e.content_hash for e in api.entries(target)} == {
        e.content_hash for e in api.entries(source)
    }
    target_tags = api.tag_names(target)
    assert list(target_tags.values()) == ["billing"] and billing not in target_tags
    [hit] = api.found(target, "Money back")
    assert hit.faq.standard_question == "How do I get a refund?"
    assert list(hit.faq.answers) == ["Refunds reach your card within five quokkafold days."]
    assert hit.faq.entry_id not in {refund.id, hours.id, legacy.id, card.id}
    assert api.found(target, "zeppelin") == [], "a disabled entry stays disabled"
    assert bool(api.found(target, "quokkafold")) == (index_mode == QUESTION_ANSWER)

    # The source changes; cloning again syncs only that.
    support = api.tag(source, "support")
    api.faq.UpdateFAQEntry(
        faq_pb2.UpdateFAQEntryRequest(
            knowledge_base_id=source,
            id=refund.id,
            content=faq_pb2.FAQEntryContent(
                standard_question="How do I get a refund?",
                similar_questions=["Money back", "Return my payment"],
                answers=["Refunds reach your card within five quokkafold days."],
                answer_strategy=RANDOM,
                tag_id=support,
            ),
        )
    )
    api.faq.UpdateFAQEntry(
        faq_pb2.UpdateFAQEntryRequest(
            knowledge_base_id=source,
            id=card.id,
            content=faq_pb2.FAQEntryContent(
                standard_question="Can I pay by card?", answers=["Only wombat cards now."]
            ),
        )
    )
    api.faq.DeleteFAQEntries(
        faq_pb2.DeleteFAQEntriesRequest(knowledge_base_id=source, ids=[hours.id])
    )
    api.faq.SetFAQEntriesEnabled(
        faq_pb2.SetFAQEntriesEnabledRequest(knowledge_base_id=source, ids=[legacy.id], enabled=True)
    )
    api.create(
        source,
        standard_question="Where is my parcel?",
        similar_questions=["Track my order"],
        answers=["Ask the capybara desk."],
    )
    kept_ids = {e.content.standard_question: e.id for e in api.entries(target)}

    asked = len(embeddings.log())
    again = api.clone(source, target)
    assert again.status == COMPLETED, again.error_message
    # Removed: the opening hours and the card's old answer; added: the parcel and the card's
    # new answer; synced: the refund and the zeppelin entries.
    assert (again.total, again.added, again.removed, again.failed) == (6, 2, 2, 0)
    assert len(embeddings.log()) == asked, "a re-clone embeds nothing"
    assert api.described(target) == api.described(source)
    after = {e.content.standard_question: e for e in api.entries(target)}
    assert after["How do I get a refund?"].id == kept_ids["How do I get a refund?"]
    assert after["How do I get a refund?"].content.answer_strategy == RANDOM
    assert sorted(api.tag_names(target).values()) == ["billing", "support"]
    assert "When are you open?" not in after
    assert api.found(target, "pangolin") == [] and api.found(target, "open") == []
    [parcel] = api.found(target, "parcel")
    assert list(parcel.faq.answers) == ["Ask the capybara desk."]
    [zeppelin] = api.found(target, "zeppelin")
    assert zeppelin.faq.entry_id == kept_ids["Do you ship by zeppelin?"]
    [paid] = [h for h in api.found(target, "pay by card") if h.content == "Can I pay by card?"]
    assert list(paid.faq.answers) == ["Only wombat cards now."]

    # Nothing changed since: every entry is only synced, none written or removed.
    idle = api.clone(source, target)
    assert (idle.status, idle.total, idle.added, idle.removed) == (COMPLETED, 4, 0, 0)
    assert api.described(target) == api.described(source)


def test_a_target_of_another_type_or_model_is_refused_naming_which(
    api: Api, embeddings: EmbeddingServer, client: SluiceClient
) -> None:
    source = api.faq_kb(embeddings, QUESTION_ONLY, COMBINED)
    documents = client.create_knowledge_base(
        f"docs-{uuid.uuid4().hex[:8]}",
        config=v1.KnowledgeBaseConfig(
            embedding=v1.ModelConfig(
                provider="openai",
                model=embeddings.model,
                base_url=embeddings.base_url,
                dimensions=DIMENSION,
            )
        ),
    )
    with pytest.raises(FailedPrecondition) as refused:
        client.clone_knowledge_base(source, target_id=documents.id)
    assert "KB_TYPE_MISMATCH" in str(refused.value.details)
    other = api.kbs.CreateKnowledgeBase(
        knowledge_base_pb2.CreateKnowledgeBaseRequest(
            name=f"faq-local-{uuid.uuid4().hex[:8]}",
            type=knowledge_base_pb2.KNOWLEDGE_BASE_TYPE_FAQ,
        )
    ).knowledge_base
    with pytest.raises(FailedPrecondition) as refused:
        client.clone_knowledge_base(source, target_id=other.id)
    assert "EMBEDDING_MODEL_MISMATCH" in str(refused.value.details)
    assert embeddings.model in refused.value.message
    # An FAQ target whose entries are indexed in other modes: its rows could not be synced.
    separate = api.faq_kb(embeddings, QUESTION_ANSWER, SEPARATE)
    rain = api.create(separate, standard_question="Is it raining?", answers=["Rarely."])
    with pytest.raises(FailedPrecondition) as refused:
        client.clone_knowledge_base(source, target_id=separate)
    assert "FAQ_INDEX_MODE_MISMATCH" in str(refused.value.details)
    assert "question_answer/separate" in refused.value.message
    # Emptied, it takes the source's modes with its entries.
    api.faq.DeleteFAQEntries(
        faq_pb2.DeleteFAQEntriesRequest(knowledge_base_id=separate, ids=[rain.id])
    )
    api.create(source, standard_question="Is it sunny?", answers=["Often."])
    emptied = api.clone(source, separate)
    assert (emptied.status, emptied.added) == (COMPLETED, 1)
    assert api.described(separate) == api.described(source)
