"""Wiki pages written into a deployment's own database, as the wiki task leaves them (a page,
one source row per contributing knowledge, one link row per page slug its Markdown links
to (core.wiki_markdown.page_links, as the wiki task finds them), the page's sorted
source_knowledge_ids), for the WikiService tests to read back."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from core.wiki_markdown import page_links
from storage.db.engine import Database
from storage.db.models import WikiPage, WikiPageLink, WikiPageSource
from tests.e2e.stacks import Stack
from workers.settings import Settings

# When the test's pages were written: fixed, so replies can be compared exactly.
WRITTEN_AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Contribution:
    """A knowledge's part in a page: the round that ingested it, and when."""

    knowledge_id: str
    attempt: int
    ingested_at: datetime


@contextmanager
def deployment_database(stack: Stack) -> Iterator[Database]:
    db = Database.from_url(Settings.from_env(env=stack.env).storage.database_url)
    try:
        yield db
    finally:
        db.dispose()


def write_page(
    db: Database,
    *,
    tenant_id: str,
    knowledge_base_id: str,
    slug: str,
    title: str,
    content: str,
    sources: Sequence[Contribution] = (),
    version: int = 1,
) -> WikiPage:
    """The page, its sources and its links (the wiki:// targets of ``content``), in one
    transaction."""
    page = WikiPage(
        tenant_id=tenant_id,
        knowledge_base_id=knowledge_base_id,
        slug=slug,
        title=title,
        content=content,
        source_knowledge_ids=sorted(s.knowledge_id for s in sources),
        version=version,
        created_at=WRITTEN_AT,
        updated_at=max((s.ingested_at for s in sources), default=WRITTEN_AT),
    )
    with db.session() as session:
        session.add(page)
        session.flush()
        session.add_all(
            WikiPageSource(
                page_id=page.id,
                knowledge_id=s.knowledge_id,
                knowledge_base_id=knowledge_base_id,
                attempt=s.attempt,
                contribution=f"What {s.knowledge_id} says about {title}.",
                updated_at=s.ingested_at,
            )
            for s in sources
        )
        session.add_all(
            WikiPageLink(page_id=page.id, target_slug=target) for target in page_links(content)
        )
    return page


def write_pages(
    db: Database, *, tenant_id: str, knowledge_base_id: str, titles: Sequence[str]
) -> None:
    """Pages without sources or links, one per title (slug: the title lower-cased, dashed),
    in one transaction."""
    with db.session() as session:
        session.add_all(
            WikiPage(
                tenant_id=tenant_id,
                knowledge_base_id=knowledge_base_id,
                slug=title.lower().replace(" ", "-"),
                title=title,
                content=f"# {title}\n",
                created_at=WRITTEN_AT,
                updated_at=WRITTEN_AT,
            )
            for title in titles
        )
