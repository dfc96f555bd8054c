"""Reading a knowledge base's wiki (what the WikiService serves): its pages, newest write
first, each with the knowledges it was built from and the pages it links to."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from storage.db.engine import Database
from storage.db.models import WikiPage, WikiPageLink, WikiPageSource


@dataclass(frozen=True)
class WikiPageList:
    pages: list[WikiPage]
    # Every page matching, not only this slice.
    total: int


@dataclass(frozen=True)
class WikiPageDetail:
    page: WikiPage
    # One row per contributing knowledge, by knowledge id.
    sources: list[WikiPageSource]
    # Slugs the page's Markdown links to, sorted (their pages may not exist yet).
    links: list[str]


class WikiPageRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def list_pages(
        self,
        knowledge_base_id: str,
        *,
        knowledge_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> WikiPageList:
        """The base's pages, most recently written first (ties by slug); with
        ``knowledge_id``, only the pages that knowledge contributed to."""
        conditions = [WikiPage.knowledge_base_id == knowledge_base_id]
        if knowledge_id is not None:
            conditions.append(
                WikiPage.id.in_(
                    select(WikiPageSource.page_id).where(
                        WikiPageSource.knowledge_id == knowledge_id
                    )
                )
            )
        query = (
            select(WikiPage)
            .where(*conditions)
            .order_by(WikiPage.updated_at.desc(), WikiPage.slug)
            .limit(limit)
            .offset(offset)
        )
        with self._db.session() as session:
            total = session.scalar(select(func.count()).select_from(WikiPage).where(*conditions))
            return WikiPageList(pages=list(session.scalars(query)), total=total or 0)

    def get_page(self, knowledge_base_id: str, slug: str) -> WikiPageDetail | None:
        """The page ``slug`` of the base with its sources and links; None when absent."""
        with self._db.session() as session:
            page = session.scalars(
                select(WikiPage).where(
                    WikiPage.knowledge_base_id == knowledge_base_id, WikiPage.slug == slug
                )
            ).one_or_none()
            if page is None:
                return None
            sources = session.scalars(
                select(WikiPageSource)
                .where(WikiPageSource.page_id == page.id)
                .order_by(WikiPageSource.knowledge_id)
            )
            links = session.scalars(
                select(WikiPageLink.target_slug)
                .where(WikiPageLink.page_id == page.id)
                .order_by(WikiPageLink.target_slug)
            )
            return WikiPageDetail(page=page, sources=list(sources), links=list(links))
