"""A wiki page as the WikiService reads it (storage.db.repositories.wiki_reads): the page,
its sources by knowledge id, and the slugs it links to — what the wiki tests assert on."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db.engine import Database
from storage.db.models import WikiPage
from storage.db.repositories.wiki_reads import WikiReadRepository, WikiSource


@dataclass(frozen=True)
class PageView:
    page: WikiPage
    sources: list[WikiSource]
    links: list[str]


def read_page(db: Database, knowledge_base_id: str, slug: str) -> PageView | None:
    repo = WikiReadRepository(db)
    page = repo.by_slug(knowledge_base_id, slug, None)
    if page is None:
        return None
    sources = sorted(repo.sources(page.id), key=lambda source: source.knowledge_id)
    return PageView(page, sources, [link.slug for link in repo.links(page)])


def read_pages(db: Database, knowledge_base_id: str) -> dict[str, PageView]:
    """Every page of the knowledge base, by slug."""
    summaries, _ = WikiReadRepository(db).list_pages(
        knowledge_base_id, tenant_id=None, title_or_slug=None, limit=1000, offset=0
    )
    found = {}
    for summary in summaries:
        view = read_page(db, knowledge_base_id, summary.slug)
        assert view is not None
        found[summary.slug] = view
    return found
