"""The wiki as WikiService reads it (reads only; the wiki task writes the pages): a knowledge
base's page summaries, filtered and paged, and one page with its sources and the pages it
links to.

A page's sources are its ``wiki_page_sources`` rows with their knowledges' titles (a
knowledge_id there is no foreign key: a contribution outlives its knowledge's row until the
deletion reconciles the page, and its title is then ""). Its links are its
``wiki_page_links`` slugs, each with the page of that slug in the same knowledge base if
there is one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, func, or_, select

from storage.db.engine import Database
from storage.db.models import Knowledge, WikiPage, WikiPageLink, WikiPageSource


@dataclass(frozen=True)
class WikiPageSummary:
    """A page without its content (what a listing shows)."""

    id: str
    knowledge_base_id: str
    slug: str
    title: str
    version: int
    source_count: int
    updated_at: datetime


@dataclass(frozen=True)
class WikiSource:
    knowledge_id: str
    # "" when the knowledge's row is gone.
    title: str
    attempt: int
    ingested_at: datetime


@dataclass(frozen=True)
class WikiLink:
    slug: str
    # "" both while no page of the knowledge base has the slug.
    page_id: str
    title: str


WikiPageSummaries = tuple[list[WikiPageSummary], int]


def _tenant_pages(tenant_id: str | None) -> list[ColumnElement[bool]]:
    return [] if tenant_id is None else [WikiPage.tenant_id == tenant_id]


class WikiReadRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def list_pages(
        self,
        knowledge_base_id: str,
        *,
        tenant_id: str | None,
        title_or_slug: str | None,
        limit: int,
        offset: int,
    ) -> WikiPageSummaries:
        """The knowledge base's pages by title then slug (stable while pages are rewritten),
        only those whose title or slug contains ``title_or_slug`` (ignoring case), and how
        many match."""
        conditions = [WikiPage.knowledge_base_id == knowledge_base_id, *_tenant_pages(tenant_id)]
        if title_or_slug:
            needle = title_or_slug.lower()
            conditions.append(
                or_(
                    func.lower(WikiPage.title).contains(needle, autoescape=True),
                    func.lower(WikiPage.slug).contains(needle, autoescape=True),
                )
            )
        # The columns a summary shows: a listing never loads the pages' content.
        query = (
            select(
                WikiPage.id,
                WikiPage.knowledge_base_id,
                WikiPage.slug,
                WikiPage.title,
                WikiPage.version,
                WikiPage.source_knowledge_ids,
                WikiPage.updated_at,
            )
            .where(*conditions)
            .order_by(WikiPage.title, WikiPage.slug)
            .limit(limit)
            .offset(offset)
        )
        with self._db.session() as session:
            total = session.scalar(select(func.count()).select_from(WikiPage).where(*conditions))
            summaries = [
                WikiPageSummary(
                    id=row.id,
                    knowledge_base_id=row.knowledge_base_id,
                    slug=row.slug,
                    title=row.title,
                    version=row.version,
                    source_count=len(row.source_knowledge_ids),
                    updated_at=row.updated_at,
                )
                for row in session.execute(query)
            ]
        return summaries, total or 0

    def get(self, page_id: str, tenant_id: str | None) -> WikiPage | None:
        """The page of ``tenant_id`` (None: of any tenant)."""
        query = select(WikiPage).where(WikiPage.id == page_id, *_tenant_pages(tenant_id))
        with self._db.session() as session:
            return session.scalars(query).one_or_none()

    def by_slug(self, knowledge_base_id: str, slug: str, tenant_id: str | None) -> WikiPage | None:
        query = select(WikiPage).where(
            WikiPage.knowledge_base_id == knowledge_base_id,
            WikiPage.slug == slug,
            *_tenant_pages(tenant_id),
        )
        with self._db.session() as session:
            return session.scalars(query).one_or_none()

    def sources(self, page_id: str) -> list[WikiSource]:
        """The page's sources, oldest ingest first."""
        query = (
            select(
                WikiPageSource.knowledge_id,
                Knowledge.title,
                WikiPageSource.attempt,
                WikiPageSource.updated_at,
            )
            .select_from(WikiPageSource)
            .outerjoin(Knowledge, Knowledge.id == WikiPageSource.knowledge_id)
            .where(WikiPageSource.page_id == page_id)
            .order_by(WikiPageSource.updated_at, WikiPageSource.knowledge_id)
        )
        with self._db.session() as session:
            return [
                WikiSource(knowledge_id, title or "", attempt, ingested_at)
                for knowledge_id, title, attempt, ingested_at in session.execute(query)
            ]

    def links(self, page: WikiPage) -> list[WikiLink]:
        """The slugs ``page`` links to, by slug, each with its page (if it exists)."""
        target = and_(
            WikiPage.knowledge_base_id == page.knowledge_base_id,
            WikiPage.slug == WikiPageLink.target_slug,
        )
        query = (
            select(WikiPageLink.target_slug, WikiPage.id, WikiPage.title)
            .select_from(WikiPageLink)
            .outerjoin(WikiPage, target)
            .where(WikiPageLink.page_id == page.id)
            .order_by(WikiPageLink.target_slug)
        )
        with self._db.session() as session:
            return [
                WikiLink(slug, page_id or "", title or "")
                for slug, page_id, title in session.execute(query)
            ]
