"""WikiService over real gRPC, in lite and full mode, with auth on: a knowledge base's pages
listed (by title, paged 20 by default and at most 100, filtered by title or slug) and read
by slug or id with their sources (the knowledges' titles, the attempt each was ingested
under, when) and the pages they link to. Another tenant's knowledge base or page, and an
unknown slug or id, are NOT_FOUND; a bad page size, page token or page reference is
INVALID_ARGUMENT naming its field.

The pages are written into the deployment's database as the wiki task leaves them
(tests/e2e/wiki_support.py); their sources are real knowledges (drafts, so nothing else runs).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from sluice.v1 import wiki_pb2, wiki_pb2_grpc
from sluice_client import NotFound, SluiceClient
from sluice_client.cli import main as cli

from storage.db.engine import Database
from storage.db.repositories.tenants import TenantRepository
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.e2e.wiki_support import WRITTEN_AT, Contribution, deployment_database, write_page
from tests.e2e.wiki_support import write_pages as write_plain_pages

RULES = """# Harbour rules

Boats moor at the [East quay](wiki://east-quay) after the evening bell
([Harbour notes](knowledge://{notes})). The [Lighthouse](wiki://lighthouse) keeper rings it
([Keeper's log](knowledge://{log})); see also the [East quay](wiki://east-quay) timetable.
"""


@dataclass(frozen=True)
class Tenant:
    tenant_id: str
    key: str


@dataclass(frozen=True)
class Wiki:
    """What the module's tests read: the owner's knowledge base and pages, and a stranger."""

    stack: Stack
    owner: Tenant
    stranger: Tenant
    kb_id: str
    big_kb_id: str
    notes_id: str
    log_id: str
    # A knowledge deleted since it contributed (its row is gone, its source row is not).
    gone_id: str
    rules_id: str
    quay_id: str


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp(f"wiki-service-{request.param}")
    env = {"SLUICE_AUTH_REQUIRED": "true"}
    if request.param == "lite":
        with lite_stack(data_dir, extra_env=env) as running:
            yield running
    else:
        # No document is processed here (the sources are drafts): no workers needed.
        with full_stack(data_dir, workers=0, extra_env=env) as running:
            yield running


def _tenant(db: Database, name: str) -> Tenant:
    tenants = TenantRepository(db)
    tenant = tenants.create_tenant(name)
    return Tenant(tenant.id, tenants.create_api_key(tenant.id, f"{name}-key").key)


@pytest.fixture(scope="module")
def wiki(stack: Stack) -> Iterator[Wiki]:
    with deployment_database(stack) as db:
        owner, stranger = _tenant(db, "owner"), _tenant(db, "stranger")
        with SluiceClient(stack.target, api_key=owner.key) as client:
            kb = client.create_knowledge_base("harbour")
            big = client.create_knowledge_base("big")
            notes = client.create_manual(kb.id, "Harbour notes", "# Notes", publish=False)
            log = client.create_manual(kb.id, "Keeper's log", "# Log", publish=False)
        gone_id = str(uuid.uuid4())
        rules = write_page(
            db,
            tenant_id=owner.tenant_id,
            knowledge_base_id=kb.id,
            slug="harbour-rules",
            title="Harbour rules",
            content=RULES.format(notes=notes.id, log=log.id),
            sources=[
                Contribution(log.id, 1, WRITTEN_AT + timedelta(hours=2)),
                Contribution(notes.id, 2, WRITTEN_AT),
                Contribution(gone_id, 1, WRITTEN_AT + timedelta(hours=1)),
            ],
            version=3,
        )
        quay = write_page(
            db,
            tenant_id=owner.tenant_id,
            knowledge_base_id=kb.id,
            slug="east-quay",
            title="East quay",
            content="# East quay\n\nSee [Harbour rules](wiki://harbour-rules).\n",
            sources=[Contribution(notes.id, 2, WRITTEN_AT)],
        )
        write_page(
            db,
            tenant_id=owner.tenant_id,
            knowledge_base_id=kb.id,
            slug="tides",
            title="Tide tables",
            content="# Tide tables\n",
        )
        write_plain_pages(
            db,
            tenant_id=owner.tenant_id,
            knowledge_base_id=big.id,
            titles=[f"Page {n:03}" for n in range(105)],
        )
        yield Wiki(
            stack, owner, stranger, kb.id, big.id, notes.id, log.id, gone_id, rules.id, quay.id
        )


@pytest.fixture(scope="module")
def owner(wiki: Wiki) -> Iterator[SluiceClient]:
    with SluiceClient(wiki.stack.target, api_key=wiki.owner.key) as client:
        yield client


@pytest.fixture(scope="module")
def stranger(wiki: Wiki) -> Iterator[SluiceClient]:
    with SluiceClient(wiki.stack.target, api_key=wiki.stranger.key) as client:
        yield client


class _Raw:
    """The official stubs on a plain channel: one response at a time, its status details."""

    def __init__(self, target: str, key: str) -> None:
        self._channel = grpc.insecure_channel(target)
        self.stub = wiki_pb2_grpc.WikiServiceStub(self._channel)
        self.metadata = (("authorization", f"Bearer {key}"),)

    def list(self, **fields: object) -> wiki_pb2.ListWikiPagesResponse:
        request = wiki_pb2.ListWikiPagesRequest(**fields)  # type: ignore[arg-type]
        return self.stub.ListWikiPages(request, metadata=self.metadata, timeout=30)

    def get(self, request: wiki_pb2.GetWikiPageRequest) -> wiki_pb2.GetWikiPageResponse:
        return self.stub.GetWikiPage(request, metadata=self.metadata, timeout=30)

    def close(self) -> None:
        self._channel.close()


@pytest.fixture(scope="module")
def raw(wiki: Wiki) -> Iterator[_Raw]:
    api = _Raw(wiki.stack.target, wiki.owner.key)
    yield api
    api.close()


def _violations(error: grpc.RpcError) -> list[str]:
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
    status = rpc_status.from_call(error)
    assert status is not None
    fields = []
    for detail in status.details:
        bad_request = error_details_pb2.BadRequest()
        if detail.Unpack(bad_request):
            fields += [v.field for v in bad_request.field_violations]
    return fields


def _not_found_resource(error: grpc.RpcError) -> error_details_pb2.ResourceInfo:
    assert error.code() == grpc.StatusCode.NOT_FOUND, error
    status = rpc_status.from_call(error)
    assert status is not None
    for detail in status.details:
        info = error_details_pb2.ResourceInfo()
        if detail.Unpack(info):
            return info
    raise AssertionError("NOT_FOUND without ResourceInfo")


def test_pages_are_listed_by_title_with_their_source_counts(
    wiki: Wiki, owner: SluiceClient
) -> None:
    pages = list(owner.list_wiki_pages(wiki.kb_id))
    assert [(p.slug, p.title, p.version, p.source_count) for p in pages] == [
        ("east-quay", "East quay", 1, 1),
        ("harbour-rules", "Harbour rules", 3, 3),
        ("tides", "Tide tables", 1, 0),
    ]
    assert pages[1].id == wiki.rules_id
    assert pages[1].updated_at == WRITTEN_AT + timedelta(hours=2)
    assert {p.knowledge_base_id for p in pages} == {wiki.kb_id}


def test_pages_come_20_by_default_at_most_100_and_tokens_resume(raw: _Raw, wiki: Wiki) -> None:
    first = raw.list(knowledge_base_id=wiki.big_kb_id)
    assert (len(first.pages), first.total) == (20, 105)
    assert [p.title for p in first.pages] == [f"Page {n:03}" for n in range(20)]
    clamped = raw.list(knowledge_base_id=wiki.big_kb_id, page_size=1000)
    assert len(clamped.pages) == 100
    rest = raw.list(
        knowledge_base_id=wiki.big_kb_id, page_size=1000, page_token=clamped.next_page_token
    )
    assert [p.title for p in rest.pages] == [f"Page {n:03}" for n in range(100, 105)]
    assert rest.next_page_token == ""
    # Small pages, followed to the end, list every page once.
    seen: list[str] = []
    token = ""
    while True:
        page = raw.list(knowledge_base_id=wiki.kb_id, page_size=2, page_token=token)
        seen += [p.slug for p in page.pages]
        token = page.next_page_token
        if not token:
            break
    assert seen == ["east-quay", "harbour-rules", "tides"]


def test_the_filter_matches_title_or_slug_ignoring_case(wiki: Wiki, owner: SluiceClient) -> None:
    def slugs(query: str) -> list[str]:
        return [p.slug for p in owner.list_wiki_pages(wiki.kb_id, query=query)]

    assert slugs("QUAY") == ["east-quay"]
    assert slugs("tide") == ["tides"]  # the title "Tide tables", the slug "tides"
    assert slugs("harbour-") == ["harbour-rules"]  # by slug only
    assert slugs("e") == ["east-quay", "harbour-rules", "tides"]
    assert slugs("%") == []  # a LIKE wildcard is a plain character


def test_a_page_by_slug_has_its_content_sources_and_links(wiki: Wiki, owner: SluiceClient) -> None:
    page = owner.get_wiki_page(wiki.kb_id, "harbour-rules")
    assert (page.id, page.slug, page.title, page.version) == (
        wiki.rules_id,
        "harbour-rules",
        "Harbour rules",
        3,
    )
    assert page.content == RULES.format(notes=wiki.notes_id, log=wiki.log_id)
    assert (page.tenant_id, page.knowledge_base_id) == (wiki.owner.tenant_id, wiki.kb_id)
    assert page.created_at == WRITTEN_AT
    assert page.updated_at == WRITTEN_AT + timedelta(hours=2)
    # Oldest ingest first; a knowledge gone since has no title.
    assert [(s.knowledge_id, s.title, s.attempt, s.ingested_at) for s in page.sources] == [
        (wiki.notes_id, "Harbour notes", 2, WRITTEN_AT),
        (wiki.gone_id, "", 1, WRITTEN_AT + timedelta(hours=1)),
        (wiki.log_id, "Keeper's log", 1, WRITTEN_AT + timedelta(hours=2)),
    ]
    # Each linked page once, by slug; a slug without a page yet has no id or title.
    assert [(link.slug, link.page_id, link.title) for link in page.links] == [
        ("east-quay", wiki.quay_id, "East quay"),
        ("lighthouse", "", ""),
    ]


def test_a_page_by_id_is_the_same_page(wiki: Wiki, owner: SluiceClient) -> None:
    assert owner.get_wiki_page(page_id=wiki.quay_id) == owner.get_wiki_page(wiki.kb_id, "east-quay")
    quay = owner.get_wiki_page(page_id=wiki.quay_id)
    assert [link.page_id for link in quay.links] == [wiki.rules_id]
    assert [s.title for s in quay.sources] == ["Harbour notes"]


def test_another_tenants_knowledge_base_and_pages_are_not_found(
    wiki: Wiki, stranger: SluiceClient
) -> None:
    with pytest.raises(NotFound):
        list(stranger.list_wiki_pages(wiki.kb_id))
    with pytest.raises(NotFound):
        stranger.get_wiki_page(wiki.kb_id, "harbour-rules")
    with pytest.raises(NotFound):
        stranger.get_wiki_page(page_id=wiki.rules_id)
    # What the stranger gets for a real page is what anyone gets for a made-up one.
    raw = _Raw(wiki.stack.target, wiki.stranger.key)
    try:
        for request in (
            wiki_pb2.GetWikiPageRequest(id=wiki.rules_id),
            wiki_pb2.GetWikiPageRequest(id=str(uuid.uuid4())),
        ):
            with pytest.raises(grpc.RpcError) as refused:
                raw.get(request)
            info = _not_found_resource(refused.value)
            assert (info.resource_type, info.resource_name) == ("sluice.v1.WikiPage", request.id)
    finally:
        raw.close()


def test_unknown_slugs_ids_and_knowledge_bases_are_not_found(raw: _Raw, wiki: Wiki) -> None:
    slug = wiki_pb2.WikiPageSlug(knowledge_base_id=wiki.kb_id, slug="lighthouse")
    with pytest.raises(grpc.RpcError) as no_page:
        raw.get(wiki_pb2.GetWikiPageRequest(slug=slug))
    info = _not_found_resource(no_page.value)
    assert (info.resource_type, info.resource_name) == (
        "sluice.v1.WikiPage",
        f"{wiki.kb_id}/lighthouse",
    )
    with pytest.raises(grpc.RpcError) as no_id:
        raw.get(wiki_pb2.GetWikiPageRequest(id=str(uuid.uuid4())))
    assert no_id.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as no_kb:
        raw.list(knowledge_base_id=str(uuid.uuid4()))
    assert _not_found_resource(no_kb.value).resource_type == "sluice.v1.KnowledgeBase"


def test_bad_page_sizes_tokens_and_references_are_invalid(raw: _Raw, wiki: Wiki) -> None:
    with pytest.raises(grpc.RpcError) as negative:
        raw.list(knowledge_base_id=wiki.kb_id, page_size=-1)
    assert _violations(negative.value) == ["page_size"]
    token = raw.list(knowledge_base_id=wiki.big_kb_id).next_page_token
    assert token
    for bad in (token[:-2] + "xy", "not-a-token"):
        with pytest.raises(grpc.RpcError) as altered:
            raw.list(knowledge_base_id=wiki.big_kb_id, page_token=bad)
        assert _violations(altered.value) == ["page_token"]
    # A token resumes only its own query: not another knowledge base's, nor another filter's.
    for other in ({"knowledge_base_id": wiki.kb_id}, {"query": "page"}):
        fields = {"knowledge_base_id": wiki.big_kb_id, "page_token": token, **other}
        with pytest.raises(grpc.RpcError) as foreign:
            raw.list(**fields)
        assert _violations(foreign.value) == ["page_token"]
    with pytest.raises(grpc.RpcError) as too_long:
        raw.list(knowledge_base_id=wiki.kb_id, query="q" * 257)
    assert _violations(too_long.value) == ["query"]
    with pytest.raises(grpc.RpcError) as unset:
        raw.get(wiki_pb2.GetWikiPageRequest())
    assert _violations(unset.value) == ["page"]
    empty = wiki_pb2.WikiPageSlug(knowledge_base_id=wiki.kb_id, slug="")
    with pytest.raises(grpc.RpcError) as no_slug:
        raw.get(wiki_pb2.GetWikiPageRequest(slug=empty))
    assert _violations(no_slug.value) == ["slug.slug"]


def test_health_and_reflection_list_the_wiki_service(wiki: Wiki) -> None:
    with grpc.insecure_channel(wiki.stack.target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest(service="sluice.v1.WikiService")
        assert health.Check(request, timeout=10).status == health_pb2.HealthCheckResponse.SERVING
        reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = reflect.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10
        )
        names = {s.name for r in replies for s in r.list_services_response.service}
    assert "sluice.v1.WikiService" in names


def test_the_cli_lists_and_shows_pages(wiki: Wiki, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--target", wiki.stack.target, "--api-key", wiki.owner.key, "wiki"]
    assert cli([*base, "list", wiki.kb_id, "--query", "quay"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line == "east-quay  East quay  v1  1 source  2026-11-30T09:00:00+00:00"
    assert cli([*base, "show", wiki.kb_id, "harbour-rules"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("Harbour rules (harbour-rules, version 3, updated ")
    assert RULES.format(notes=wiki.notes_id, log=wiki.log_id) in shown
    assert f"  {wiki.gone_id}  (deleted)  attempt 1  ingested 2026-11-30T10:00:00+00:00" in shown
    assert "  lighthouse  (no such page yet)" in shown
    assert cli([*base, "get", wiki.quay_id, "--json"]) == 0
    page = json.loads(capsys.readouterr().out)
    assert (page["slug"], page["links"][0]["pageId"]) == ("east-quay", wiki.rules_id)
    assert cli([*base, "show", wiki.kb_id, "lighthouse"]) == 4
    assert capsys.readouterr().err.startswith("error: NOT_FOUND: ")
