"""Wiki calls and commands: `list_wiki_pages` (filter, page size, every page followed),
`get_wiki_page` (by slug or by id, typed answer, errors raised) and `sluice wiki list|show|get`,
against a real loopback WikiService."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import grpc
import pytest
from google.protobuf import timestamp_pb2
from sluice.v1 import wiki_pb2, wiki_pb2_grpc
from sluice_client import NotFound, SluiceClient
from sluice_client.cli import main

from .conftest import Serve, page_of

UPDATED = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _timestamp(value: datetime) -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(value)
    return ts


RULES = wiki_pb2.WikiPage(
    id="p-rules",
    knowledge_base_id="kb-1",
    slug="harbour-rules",
    title="Harbour rules",
    content="# Harbour rules\n\nBoats moor at the [East quay](wiki://east-quay).\n",
    version=3,
    updated_at=_timestamp(UPDATED),
    sources=[
        wiki_pb2.WikiPageSource(
            knowledge_id="k-1", title="Harbour notes", attempt=2, ingested_at=_timestamp(UPDATED)
        ),
        wiki_pb2.WikiPageSource(knowledge_id="k-2", attempt=1, ingested_at=_timestamp(UPDATED)),
    ],
    links=[
        wiki_pb2.WikiPageLink(slug="east-quay", page_id="p-quay", title="East quay"),
        wiki_pb2.WikiPageLink(slug="lighthouse"),
    ],
)


class RecordingWiki(wiki_pb2_grpc.WikiServiceServicer):
    """Five pages in kb-1 (page-0 … page-4, one source each); one page readable, RULES."""

    PAGE_COUNT = 5

    def __init__(self) -> None:
        self.requests: list[object] = []

    def ListWikiPages(
        self, request: wiki_pb2.ListWikiPagesRequest, context: grpc.ServicerContext
    ) -> wiki_pb2.ListWikiPagesResponse:
        self.requests.append(request)
        if request.knowledge_base_id != "kb-1":
            context.abort(grpc.StatusCode.NOT_FOUND, "no such knowledge base")
        offsets, next_token = page_of(request.page_token, request.page_size, self.PAGE_COUNT)
        pages = [
            wiki_pb2.WikiPageSummary(
                id=f"p-{i}",
                knowledge_base_id="kb-1",
                slug=f"page-{i}",
                title=f"Page {i}",
                version=i + 1,
                source_count=1,
                updated_at=_timestamp(UPDATED),
            )
            for i in offsets
        ]
        return wiki_pb2.ListWikiPagesResponse(
            pages=pages, next_page_token=next_token, total=self.PAGE_COUNT
        )

    def GetWikiPage(
        self, request: wiki_pb2.GetWikiPageRequest, context: grpc.ServicerContext
    ) -> wiki_pb2.GetWikiPageResponse:
        self.requests.append(request)
        by_slug = (request.slug.knowledge_base_id, request.slug.slug) == ("kb-1", RULES.slug)
        if request.id != RULES.id and not by_slug:
            context.abort(grpc.StatusCode.NOT_FOUND, "no such wiki page")
        return wiki_pb2.GetWikiPageResponse(page=RULES)


@pytest.fixture
def wiki() -> RecordingWiki:
    return RecordingWiki()


@pytest.fixture
def target(serve: Serve, wiki: RecordingWiki) -> str:
    return serve(wiki)


@pytest.fixture
def client(target: str) -> Iterator[SluiceClient]:
    with SluiceClient(target) as client:
        yield client


def test_list_wiki_pages_sends_the_filter_and_reads_every_page(
    client: SluiceClient, wiki: RecordingWiki
) -> None:
    pages = list(client.list_wiki_pages("kb-1", query="quay", page_size=2))

    assert [(p.id, p.slug, p.version, p.source_count) for p in pages] == [
        (f"p-{i}", f"page-{i}", i + 1, 1) for i in range(5)
    ]
    assert pages[0].updated_at == UPDATED
    assert len(wiki.requests) == 3
    assert all(
        isinstance(r, wiki_pb2.ListWikiPagesRequest)
        and (r.knowledge_base_id, r.query, r.page_size) == ("kb-1", "quay", 2)
        for r in wiki.requests
    )


def test_list_wiki_pages_asks_for_the_servers_default_page_size(
    client: SluiceClient, wiki: RecordingWiki
) -> None:
    assert len(list(client.list_wiki_pages("kb-1"))) == 5
    (request,) = wiki.requests
    assert isinstance(request, wiki_pb2.ListWikiPagesRequest)
    assert (request.page_size, request.query) == (20, "")


def test_get_wiki_page_by_slug_or_by_id(client: SluiceClient, wiki: RecordingWiki) -> None:
    by_slug = client.get_wiki_page("kb-1", "harbour-rules")
    by_id = client.get_wiki_page(page_id="p-rules")

    assert by_slug == by_id
    assert (by_slug.title, by_slug.version, by_slug.updated_at) == ("Harbour rules", 3, UPDATED)
    assert [(s.knowledge_id, s.title, s.attempt) for s in by_slug.sources] == [
        ("k-1", "Harbour notes", 2),
        ("k-2", "", 1),
    ]
    assert [(link.slug, link.page_id) for link in by_slug.links] == [
        ("east-quay", "p-quay"),
        ("lighthouse", ""),
    ]
    slug_request, id_request = wiki.requests
    assert isinstance(slug_request, wiki_pb2.GetWikiPageRequest)
    assert slug_request.WhichOneof("page") == "slug"
    assert (slug_request.slug.knowledge_base_id, slug_request.slug.slug) == (
        "kb-1",
        "harbour-rules",
    )
    assert isinstance(id_request, wiki_pb2.GetWikiPageRequest)
    assert (id_request.WhichOneof("page"), id_request.id) == ("id", "p-rules")


def test_get_wiki_page_needs_exactly_one_reference(
    client: SluiceClient, wiki: RecordingWiki
) -> None:
    with pytest.raises(ValueError):
        client.get_wiki_page()
    with pytest.raises(ValueError):
        client.get_wiki_page("kb-1", "harbour-rules", page_id="p-rules")
    assert wiki.requests == []


def test_an_unknown_page_is_not_found(client: SluiceClient) -> None:
    with pytest.raises(NotFound, match="no such wiki page"):
        client.get_wiki_page("kb-1", "lighthouse")
    with pytest.raises(NotFound, match="no such knowledge base"):
        next(client.list_wiki_pages("kb-2"))


def test_wiki_list_prints_a_line_per_page_or_json_lines(
    target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--target", target, "wiki", "list", "kb-1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "page-0  Page 0  v1  1 source  2026-11-30T09:00:00+00:00"
    assert len(lines) == 5

    assert main(["--target", target, "wiki", "list", "kb-1", "--json"]) == 0
    pages = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [p["slug"] for p in pages] == [f"page-{i}" for i in range(5)]


def test_wiki_show_prints_the_markdown_then_sources_and_links(
    target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--target", target, "wiki", "show", "kb-1", "harbour-rules"]) == 0

    assert capsys.readouterr().out.splitlines() == [
        "Harbour rules (harbour-rules, version 3, updated 2026-11-30T09:00:00+00:00)",
        "",
        "# Harbour rules",
        "",
        "Boats moor at the [East quay](wiki://east-quay).",
        "",
        "sources:",
        "  k-1  Harbour notes  attempt 2  ingested 2026-11-30T09:00:00+00:00",
        "  k-2  (deleted)  attempt 1  ingested 2026-11-30T09:00:00+00:00",
        "links:",
        "  east-quay  East quay",
        "  lighthouse  (no such page yet)",
    ]


def test_wiki_get_json_prints_the_page_and_a_missing_page_exits_4(
    target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--target", target, "wiki", "get", "p-rules", "--json"]) == 0
    page = json.loads(capsys.readouterr().out)
    assert (page["id"], page["version"], page["links"][0]["pageId"]) == ("p-rules", 3, "p-quay")

    assert main(["--target", target, "wiki", "get", "p-missing"]) == 4
    assert capsys.readouterr().err == "error: NOT_FOUND: no such wiki page\n"
