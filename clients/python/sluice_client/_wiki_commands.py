"""The CLI's commands for a knowledge base's wiki: `sluice wiki list`, `sluice wiki show`
(by slug) and `sluice wiki get` (by page id). They print for a reader (a line per page; a
page's Markdown, then its sources and links); `--json` prints the messages instead, as the
other commands do (a JSON line per listed page)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer

from sluice_client._app import JsonFlag, Output, connect, group
from sluice_client._proto.sluice import v1

wiki = group("wiki", "read a knowledge base's wiki pages", "Graph and wiki")


def _when(value: datetime | None) -> str:
    return value.isoformat(timespec="seconds") if value is not None else "-"


def summary_line(page: v1.WikiPageSummary) -> str:
    """`harbour-rules  Harbour rules  v3  2 sources  2026-12-02T05:40:00+00:00`."""
    sources = "1 source" if page.source_count == 1 else f"{page.source_count} sources"
    title = page.title or "(untitled)"
    return f"{page.slug}  {title}  v{page.version}  {sources}  {_when(page.updated_at)}"


def page_lines(page: v1.WikiPage) -> list[str]:
    """A header, the page's Markdown as stored, then its sources and the pages it links to."""
    lines = [
        f"{page.title} ({page.slug}, version {page.version}, updated {_when(page.updated_at)})",
        "",
        page.content.rstrip("\n"),
        "",
        "sources:",
    ]
    lines += [
        f"  {s.knowledge_id}  {s.title or '(deleted)'}  attempt {s.attempt}"
        f"  ingested {_when(s.ingested_at)}"
        for s in page.sources
    ]
    lines.append("links:")
    lines += [
        f"  {link.slug}  {link.title if link.page_id else '(no such page yet)'}"
        for link in page.links
    ]
    return lines


@wiki.command("list")
def _wiki_list(
    ctx: typer.Context,
    kb_id: Annotated[str, typer.Argument(metavar="KB_ID")],
    query: Annotated[str, typer.Option(help="only pages whose title or slug has this")] = "",
    as_json: JsonFlag = False,
) -> None:
    """List a knowledge base's pages by title."""
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        for page in client.list_wiki_pages(kb_id, query=query):
            if out.json:
                out.line(page)
            else:
                out.text(summary_line(page))


def _print_page(page: v1.WikiPage, out: Output) -> None:
    if out.json:
        out.message(page)
        return
    for line in page_lines(page):
        out.text(line)


@wiki.command("show")
def _wiki_show(
    ctx: typer.Context,
    kb_id: Annotated[str, typer.Argument(metavar="KB_ID")],
    slug: Annotated[str, typer.Argument(metavar="SLUG")],
    as_json: JsonFlag = False,
) -> None:
    """Show a page by its slug."""
    with connect(ctx) as client:
        _print_page(client.get_wiki_page(kb_id, slug), Output(ctx, as_json))


@wiki.command("get")
def _wiki_get(
    ctx: typer.Context,
    page_id: Annotated[str, typer.Argument(metavar="PAGE_ID")],
    as_json: JsonFlag = False,
) -> None:
    """Show a page by its id."""
    with connect(ctx) as client:
        _print_page(client.get_wiki_page(page_id=page_id), Output(ctx, as_json))
