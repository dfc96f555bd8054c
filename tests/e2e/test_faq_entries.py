"""FAQ knowledge bases over real gRPC, in lite and full mode: entries created, read, listed,
updated, enabled and deleted; duplicates refused naming the entry; documents refused; and
Search by each index mode (questions combined or separate, with or without the answers'
text), answer strategy and negative question. The bundled embedding model embeds."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from sluice.v1 import (
    config_pb2,
    faq_pb2,
    faq_pb2_grpc,
    knowledge_base_pb2,
    knowledge_base_pb2_grpc,
    knowledge_pb2,
    knowledge_pb2_grpc,
    search_pb2,
    search_pb2_grpc,
)
from sluice_client import FailedPrecondition, SluiceClient
from sluice_client.cli import main as cli

from tests.e2e.stacks import Stack

QUESTION_ONLY = config_pb2.FAQ_INDEX_MODE_QUESTION_ONLY
QUESTION_ANSWER = config_pb2.FAQ_INDEX_MODE_QUESTION_ANSWER
COMBINED = config_pb2.FAQ_QUESTION_INDEX_MODE_COMBINED
SEPARATE = config_pb2.FAQ_QUESTION_INDEX_MODE_SEPARATE
KEYWORD = search_pb2.SEARCH_MODE_KEYWORD


class Api:
    def __init__(self, channel: grpc.Channel) -> None:
        self.faq = faq_pb2_grpc.FAQServiceStub(channel)
        self.kbs = knowledge_base_pb2_grpc.KnowledgeBaseServiceStub(channel)
        self.knowledge = knowledge_pb2_grpc.KnowledgeServiceStub(channel)
        self.search = search_pb2_grpc.SearchServiceStub(channel)

    def faq_kb(
        self,
        index_mode: config_pb2.FAQIndexMode = QUESTION_ONLY,
        questions: config_pb2.FAQQuestionIndexMode = COMBINED,
    ) -> str:
        config = config_pb2.KnowledgeBaseConfig(
            faq=config_pb2.FAQConfig(index_mode=index_mode, question_index_mode=questions)
        )
        request = knowledge_base_pb2.CreateKnowledgeBaseRequest(
            name=f"faq-{uuid.uuid4().hex[:8]}",
            type=knowledge_base_pb2.KNOWLEDGE_BASE_TYPE_FAQ,
            config=config,
        )
        return str(self.kbs.CreateKnowledgeBase(request).knowledge_base.id)

    def create(self, kb_id: str, **content: Any) -> faq_pb2.FAQEntry:
        request = faq_pb2.CreateFAQEntryRequest(
            knowledge_base_id=kb_id, content=faq_pb2.FAQEntryContent(**content)
        )
        return self.faq.CreateFAQEntry(request).entry

    def found(
        self,
        kb_id: str,
        query: str,
        mode: search_pb2.SearchMode = search_pb2.SEARCH_MODE_UNSPECIFIED,
    ) -> list[search_pb2.SearchResult]:
        request = search_pb2.SearchRequest(
            query=query, knowledge_base_ids=[kb_id], top_k=5, mode=mode
        )
        return list(self.search.Search(request).results)


@pytest.fixture(scope="module")
def api(stack: Stack) -> Iterator[Api]:
    with grpc.insecure_channel(stack.target) as channel:
        yield Api(channel)


def _details(error: grpc.RpcError) -> list[object]:
    status = rpc_status.from_call(error)
    assert status is not None
    out: list[object] = []
    for detail in status.details:
        for kind in (error_details_pb2.ResourceInfo, error_details_pb2.BadRequest):
            if detail.Is(kind.DESCRIPTOR):
                message = kind()
                detail.Unpack(message)
                out.append(message)
    return out


def test_entry_lifecycle(api: Api) -> None:
    kb_id = api.faq_kb()
    entry = api.create(
        kb_id,
        standard_question="  How do I reset my password? ",
        similar_questions=["Forgot my password", "forgot MY password", ""],
        answers=["Use the reset link on the sign-in page."],
    )
    assert entry.indexed and entry.enabled and entry.id and entry.knowledge_id
    assert entry.content.standard_question == "How do I reset my password?"
    assert list(entry.content.similar_questions) == ["Forgot my password"]
    assert len(entry.content_hash) == 64
    got = api.faq.GetFAQEntry(faq_pb2.GetFAQEntryRequest(knowledge_base_id=kb_id, id=entry.id))
    assert got.entry == entry

    other = api.create(kb_id, standard_question="Where is the office?", answers=["Berlin"])
    assert other.knowledge_id == entry.knowledge_id  # the knowledge base's one knowledge
    listed = api.faq.ListFAQEntries(
        faq_pb2.ListFAQEntriesRequest(knowledge_base_id=kb_id, page_size=1)
    )
    assert listed.total == 2 and [e.id for e in listed.entries] == [entry.id]
    rest = api.faq.ListFAQEntries(
        faq_pb2.ListFAQEntriesRequest(
            knowledge_base_id=kb_id, page_size=1, page_token=listed.next_page_token
        )
    )
    assert [e.id for e in rest.entries] == [other.id] and not rest.next_page_token

    updated = api.faq.UpdateFAQEntry(
        faq_pb2.UpdateFAQEntryRequest(
            knowledge_base_id=kb_id,
            id=other.id,
            content=faq_pb2.FAQEntryContent(
                standard_question="Where is the office?",
                similar_questions=["Office address"],
                answers=["Berlin, Mitte"],
            ),
        )
    ).entry
    assert list(updated.content.answers) == ["Berlin, Mitte"]
    assert updated.content_hash != other.content_hash

    disabled = api.faq.SetFAQEntriesEnabled(
        faq_pb2.SetFAQEntriesEnabledRequest(knowledge_base_id=kb_id, ids=[other.id], enabled=False)
    )
    assert disabled.updated == 1
    only_disabled = api.faq.ListFAQEntries(
        faq_pb2.ListFAQEntriesRequest(
            knowledge_base_id=kb_id, enabled=faq_pb2.ENABLED_FILTER_DISABLED
        )
    )
    assert [e.id for e in only_disabled.entries] == [other.id]
    assert api.found(kb_id, "Office address", KEYWORD) == []

    deleted = api.faq.DeleteFAQEntries(
        faq_pb2.DeleteFAQEntriesRequest(knowledge_base_id=kb_id, ids=[other.id, "missing"])
    )
    assert deleted.deleted == 1
    with pytest.raises(grpc.RpcError) as gone:
        api.faq.GetFAQEntry(faq_pb2.GetFAQEntryRequest(knowledge_base_id=kb_id, id=other.id))
    assert gone.value.code() == grpc.StatusCode.NOT_FOUND


def test_bad_and_duplicate_entries(api: Api) -> None:
    kb_id = api.faq_kb()
    first = api.create(kb_id, standard_question="Opening hours?", answers=["9 to 5"])
    with pytest.raises(grpc.RpcError) as bad:
        api.create(kb_id, standard_question=" ", answers=[])
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    [request] = _details(bad.value)
    assert isinstance(request, error_details_pb2.BadRequest)
    assert {v.field for v in request.field_violations} == {
        "content.standard_question",
        "content.answers",
    }
    with pytest.raises(grpc.RpcError) as duplicate:
        api.create(
            kb_id, standard_question="When?", similar_questions=["OPENING  hours?"], answers=["x"]
        )
    assert duplicate.value.code() == grpc.StatusCode.ALREADY_EXISTS
    [resource] = _details(duplicate.value)
    assert isinstance(resource, error_details_pb2.ResourceInfo)
    assert resource.resource_name == first.id


def test_documents_are_refused_in_an_faq_kb(api: Api, client: SluiceClient) -> None:
    kb_id = api.faq_kb()
    with pytest.raises(FailedPrecondition):
        client.upload_file(kb_id, io.BytesIO(b"# a page\n"), file_name="page.md")
    with pytest.raises(grpc.RpcError) as manual:
        api.knowledge.CreateManual(
            knowledge_pb2.CreateManualRequest(knowledge_base_id=kb_id, title="t", content="c")
        )
    assert manual.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    # Its type is the answer whatever the URL: one that does not resolve, or a private one.
    for url in ("https://no-such-host.invalid/page", "http://10.0.0.1/page"):
        with pytest.raises(FailedPrecondition) as refused:
            client.create_from_url(kb_id, url)
        assert "KNOWLEDGE_BASE_IS_FAQ" in str(refused.value.details)


@pytest.mark.parametrize("questions", [COMBINED, SEPARATE])
def test_search_by_similar_question_and_answer_text(
    api: Api, questions: config_pb2.FAQQuestionIndexMode
) -> None:
    only = api.faq_kb(QUESTION_ONLY, questions)
    both = api.faq_kb(QUESTION_ANSWER, questions)
    for kb_id in (only, both):
        api.create(
            kb_id,
            standard_question="How long does delivery take?",
            similar_questions=["When will my parcel arrive", "Shipping duration"],
            answers=["Parcels reach you within zanzibarquux days."],
        )
        [hit] = api.found(kb_id, "Shipping duration", KEYWORD)
        assert hit.content == "How long does delivery take?"
        assert hit.faq.standard_question == "How long does delivery take?"
        # Hybrid: several of the entry's rows match, it is one result.
        hits = api.found(kb_id, "When will my parcel arrive")
        assert [h.faq.entry_id for h in hits] == [hit.faq.entry_id]
    assert api.found(only, "zanzibarquux", KEYWORD) == []
    [by_answer] = api.found(both, "zanzibarquux", KEYWORD)
    assert list(by_answer.faq.answers) == ["Parcels reach you within zanzibarquux days."]


def test_strategies_and_negative_questions(api: Api) -> None:
    kb_id = api.faq_kb(QUESTION_ONLY, SEPARATE)
    answers = ["Answer one", "Answer two", "Answer three"]
    api.create(
        kb_id,
        standard_question="Can I pay by card?",
        similar_questions=["Card payment"],
        negative_questions=["Can I pay by card in Narnia?"],
        answers=answers,
        answer_strategy=faq_pb2.ANSWER_STRATEGY_RANDOM,
    )
    api.create(kb_id, standard_question="Can I pay cash?", answers=answers)
    picked: set[str] = set()
    for _ in range(12):
        hits = api.found(kb_id, "pay by card")
        [hit] = [h for h in hits if h.faq.standard_question == "Can I pay by card?"]
        assert len(hit.faq.answers) == 1
        picked.add(hit.faq.answers[0])
    assert picked <= set(answers) and len(picked) > 1
    [cash] = api.found(kb_id, "cash", KEYWORD)
    assert list(cash.faq.answers) == answers
    # The same query normalised as the negative question: the entry is left out (its
    # neighbour still answers), while a query one word off still finds it.
    refused = api.found(kb_id, "  can I PAY by card in narnia? ")
    assert "Can I pay by card?" not in [h.faq.standard_question for h in refused]
    assert "Can I pay cash?" in [h.faq.standard_question for h in refused]
    near = api.found(kb_id, "can I pay by card in Narnia today?")
    assert "Can I pay by card?" in [h.faq.standard_question for h in near]


def test_cli_faq_commands(api: Api, stack: Stack, capsys: pytest.CaptureFixture[str]) -> None:
    kb_id = api.faq_kb()
    target = ["--target", stack.target]
    assert (
        cli([*target, "faq", "create", kb_id, "--question", "Is parking free?", "--answer", "Yes"])
        == 0
    )
    entry_id = json.loads(capsys.readouterr().out)["id"]
    assert cli([*target, "faq", "disable", kb_id, entry_id]) == 0
    assert capsys.readouterr().out.strip() == "updated 1"
    assert cli([*target, "faq", "list", kb_id, "--state", "disabled"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["id"] == entry_id
    update = ["--question", "Is parking free?", "--answer", "Yes", "--similar", "Free parking"]
    assert cli([*target, "faq", "update", kb_id, entry_id, *update]) == 0
    assert json.loads(capsys.readouterr().out)["content"]["similarQuestions"] == ["Free parking"]
    assert cli([*target, "faq", "delete", kb_id, entry_id]) == 0
    assert capsys.readouterr().out.strip() == "deleted 1"
    assert cli([*target, "faq", "get", kb_id, entry_id]) == 4
    assert "NOT_FOUND" in capsys.readouterr().err


def test_the_faq_knowledge_is_never_reparsed(api: Api) -> None:
    kb_id = api.faq_kb()
    entry = api.create(kb_id, standard_question="Do you ship abroad?", answers=["Yes"])
    with pytest.raises(grpc.RpcError) as refused:
        api.knowledge.Reparse(knowledge_pb2.ReparseRequest(id=entry.knowledge_id))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    for request in (
        knowledge_pb2.BatchReparseRequest(knowledge_base_id=kb_id),
        knowledge_pb2.BatchReparseRequest(ids=[entry.knowledge_id]),
    ):
        assert api.knowledge.BatchReparse(request).accepted == 0
    got = api.faq.GetFAQEntry(faq_pb2.GetFAQEntryRequest(knowledge_base_id=kb_id, id=entry.id))
    assert got.entry == entry
