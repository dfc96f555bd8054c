"""Writing a knowledge base's wiki pages: one knowledge's contribution merged into a page by
the ingest, and a knowledge's contributions taken out again (delete, reparse, cancel).

An ingest's write is one transaction that first locks the knowledge's row at its round
(finalizing, that attempt) and finds no tombstone, then writes the page only if it is still
at the version the synthesis read: a round reparsed, cancelled or deleted meanwhile writes
nothing (the delete's status change waits for the lock, and its reconcile then removes what
was written), and two tasks merging into one page never lose each other's text.

A retract rebuilds each affected page from its remaining sources' contributions
(``core.wiki_markdown``) and removes the pages left with none."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.statuses import ParseStatus
from core.wiki_markdown import compose_page, page_links, rebuilt_body
from storage.db.engine import Database
from storage.db.models import (
    Knowledge,
    WikiPage,
    WikiPageLink,
    WikiPageSource,
    WikiTombstone,
    utcnow,
)


@dataclass(frozen=True)
class PageState:
    """A page as a synthesis reads it (``version`` 0: it does not exist yet)."""

    slug: str
    title: str = ""
    content: str = ""
    version: int = 0
    # Contribution by knowledge id.
    contributions: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Contribution:
    """What one round of one knowledge writes into one page."""

    tenant_id: str
    knowledge_base_id: str
    knowledge_id: str
    attempt: int
    slug: str
    title: str
    # The page's new body (its synthesis with this contribution merged in).
    body: str
    # What the knowledge says about the topic, kept to rebuild the page without it.
    contribution: str


class WriteOutcome(StrEnum):
    WRITTEN = "written"
    # The page changed since it was read: read it again and merge again.
    CONFLICT = "conflict"
    # The knowledge is no longer at that round, finalizing, or it was deleted.
    STALE = "stale"


@dataclass(frozen=True)
class Retracted:
    """Pages a retract rebuilt (by knowledge base) and how many it removed."""

    rebuilt: dict[str, list[str]]
    removed: int


class WikiPageWriter:
    def __init__(self, db: Database) -> None:
        self._db = db

    def read(self, knowledge_base_id: str, slug: str) -> PageState:
        with self._db.session() as session:
            page = _page(session, knowledge_base_id, slug)
            if page is None:
                return PageState(slug=slug)
            return PageState(
                slug=slug,
                title=page.title,
                content=page.content,
                version=page.version,
                contributions=_contributions(session, page.id),
            )

    def titles(self, knowledge_base_id: str, limit: int) -> list[tuple[str, str]]:
        """(slug, title) of the base's pages, most recently written first: what a synthesis
        may link to."""
        query = (
            select(WikiPage.slug, WikiPage.title)
            .where(WikiPage.knowledge_base_id == knowledge_base_id)
            .order_by(WikiPage.updated_at.desc(), WikiPage.slug)
            .limit(limit)
        )
        with self._db.session() as session:
            return [(slug, title) for slug, title in session.execute(query)]

    def write(self, item: Contribution, expected_version: int) -> WriteOutcome:
        """Merge ``item`` into its page if the page is still at ``expected_version`` and the
        knowledge still at its round (see the module's docstring)."""
        try:
            with self._db.session() as session:
                if not _round_is_current(session, item.knowledge_id, item.attempt):
                    return WriteOutcome.STALE
                page = _page(session, item.knowledge_base_id, item.slug)
                if (page.version if page is not None else 0) != expected_version:
                    return WriteOutcome.CONFLICT
                if page is None:
                    page = WikiPage(
                        tenant_id=item.tenant_id,
                        knowledge_base_id=item.knowledge_base_id,
                        slug=item.slug,
                        version=0,
                    )
                    session.add(page)
                    session.flush()
                source = session.get(WikiPageSource, (page.id, item.knowledge_id))
                if source is None:
                    source = WikiPageSource(page_id=page.id, knowledge_id=item.knowledge_id)
                    session.add(source)
                source.knowledge_base_id = item.knowledge_base_id
                source.attempt = item.attempt
                source.contribution = item.contribution
                source.updated_at = utcnow()
                session.flush()
                _store(session, page, item.title, item.body)
        except IntegrityError:  # another task created the page first
            return WriteOutcome.CONFLICT
        return WriteOutcome.WRITTEN

    def rewrite(self, knowledge_base_id: str, slug: str, body: str, expected_version: int) -> bool:
        """The page's body written anew (its sources unchanged) if it is still at
        ``expected_version``."""
        with self._db.session() as session:
            page = _page(session, knowledge_base_id, slug)
            if page is None or page.version != expected_version:
                return False
            _store(session, page, page.title, body)
            return True

    def retract(
        self, knowledge_ids: Sequence[str], *, up_to_attempt: int | None = None
    ) -> Retracted:
        """Take the knowledges' contributions (only those of rounds up to ``up_to_attempt``
        when given) out of every page: a page left without sources goes, the others are
        rebuilt from what remains."""
        if not knowledge_ids:
            return Retracted(rebuilt={}, removed=0)
        doomed = select(WikiPageSource).where(WikiPageSource.knowledge_id.in_(list(knowledge_ids)))
        if up_to_attempt is not None:
            doomed = doomed.where(WikiPageSource.attempt <= up_to_attempt)
        rebuilt: dict[str, list[str]] = defaultdict(list)
        removed = 0
        with self._db.session() as session:
            sources = list(session.scalars(doomed.with_for_update()))
            page_ids = sorted({s.page_id for s in sources})
            for source in sources:
                session.delete(source)
            session.flush()
            for page_id in page_ids:
                page = session.get(WikiPage, page_id, with_for_update=True)
                if page is None:
                    continue
                remaining = _contributions(session, page.id)
                if not remaining:
                    session.delete(page)
                    removed += 1
                    continue
                _store(session, page, page.title, rebuilt_body(remaining.values()))
                rebuilt[page.knowledge_base_id].append(page.slug)
        return Retracted(rebuilt=dict(rebuilt), removed=removed)


def _page(session: Session, knowledge_base_id: str, slug: str) -> WikiPage | None:
    return session.scalars(
        select(WikiPage)
        .where(WikiPage.knowledge_base_id == knowledge_base_id, WikiPage.slug == slug)
        .with_for_update()
    ).one_or_none()


def _contributions(session: Session, page_id: str) -> dict[str, str]:
    rows = session.execute(
        select(WikiPageSource.knowledge_id, WikiPageSource.contribution)
        .where(WikiPageSource.page_id == page_id)
        .order_by(WikiPageSource.updated_at, WikiPageSource.knowledge_id)
    )
    return {knowledge_id: text for knowledge_id, text in rows}


def _round_is_current(session: Session, knowledge_id: str, attempt: int) -> bool:
    locked = session.scalar(
        select(Knowledge.id)
        .where(
            Knowledge.id == knowledge_id,
            Knowledge.attempt == attempt,
            Knowledge.parse_status == ParseStatus.FINALIZING,
        )
        .with_for_update()
    )
    tombstoned = session.get(WikiTombstone, knowledge_id) is not None
    return locked is not None and not tombstoned


def _store(session: Session, page: WikiPage, title: str, body: str) -> None:
    """The page's title, Markdown (with its sources, by their knowledges' titles), source
    list, links and version, from its current source rows."""
    source_ids = sorted(_contributions(session, page.id))
    rows = session.execute(
        select(Knowledge.id, Knowledge.title, Knowledge.file_name).where(
            Knowledge.id.in_(source_ids)
        )
    )
    names = {kid: name or file_name or "" for kid, name, file_name in rows}
    page.title = title
    page.content = compose_page(title, body, [(kid, names.get(kid, "")) for kid in source_ids])
    page.source_knowledge_ids = source_ids
    page.version = page.version + 1
    page.updated_at = utcnow()
    session.execute(delete(WikiPageLink).where(WikiPageLink.page_id == page.id))
    session.add_all(
        WikiPageLink(page_id=page.id, target_slug=slug)
        for slug in page_links(page.content)
        if slug != page.slug
    )
