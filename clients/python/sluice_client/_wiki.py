"""`SluiceClient`'s methods for a knowledge base's wiki (WikiService): its pages listed, and
one page read with its sources and the pages it links to."""

from __future__ import annotations

from collections.abc import Iterator

from sluice_client._calls import call, pages, required
from sluice_client._proto.sluice import v1

# The server's default page size: a wiki is read a screenful at a time.
_WIKI_PAGE_SIZE = 20


class WikiMethods:
    """Mixed into SluiceClient, which sets the stub."""

    _wiki: v1.WikiServiceStub

    def list_wiki_pages(
        self, knowledge_base_id: str, *, query: str = "", page_size: int = _WIKI_PAGE_SIZE
    ) -> Iterator[v1.WikiPageSummary]:
        """The knowledge base's pages by title (only those whose title or slug contains
        `query`, ignoring case), fetched a page at a time (at most 100 a page)."""

        def fetch(token: str) -> tuple[list[v1.WikiPageSummary], str]:
            request = v1.ListWikiPagesRequest(
                knowledge_base_id=knowledge_base_id,
                query=query,
                page_size=page_size,
                page_token=token,
            )
            response = self._wiki.list_wiki_pages(request)
            return response.pages, response.next_page_token

        return pages(fetch)

    def get_wiki_page(
        self, knowledge_base_id: str = "", slug: str = "", *, page_id: str = ""
    ) -> v1.WikiPage:
        """A page with its content, sources and links: by its knowledge base and slug, or
        by `page_id` (exactly one of the two)."""
        if bool(page_id) == bool(knowledge_base_id or slug):
            raise ValueError("pass either knowledge_base_id and slug, or page_id")
        request = (
            v1.GetWikiPageRequest(id=page_id)
            if page_id
            else v1.GetWikiPageRequest(
                slug=v1.WikiPageSlug(knowledge_base_id=knowledge_base_id, slug=slug)
            )
        )
        return required(call(self._wiki.get_wiki_page, request).page, "page")
