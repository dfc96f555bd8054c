"""The CLI's commands for a knowledge base's wiki: `sluice wiki list`, `sluice wiki show`
(by slug) and `sluice wiki get` (by page id). They print for a reader (a line per page; a
page's Markdown, then its sources and links); `--json` prints the messages instead, as the
other commands do (a JSON line per listed page)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import datetime

from sluice_client._output import to_json, to_json_line
from sluice_client._proto.sluice import v1
from sluice_client.client import SluiceClient

_Command = Callable[[SluiceClient, argparse.Namespace], int]


def _out(line: str) -> None:
    print(line, flush=True)


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


def _wiki_list(client: SluiceClient, args: argparse.Namespace) -> int:
    for page in client.list_wiki_pages(args.kb_id, query=args.query):
        _out(to_json_line(page) if args.json else summary_line(page))
    return 0


def _print_page(page: v1.WikiPage, as_json: bool) -> int:
    if as_json:
        _out(to_json(page))
    else:
        for line in page_lines(page):
            _out(line)
    return 0


def _wiki_show(client: SluiceClient, args: argparse.Namespace) -> int:
    return _print_page(client.get_wiki_page(args.kb_id, args.slug), args.json)


def _wiki_get(client: SluiceClient, args: argparse.Namespace) -> int:
    return _print_page(client.get_wiki_page(page_id=args.page_id), args.json)


WIKI_COMMANDS: dict[str, _Command] = {
    "wiki list": _wiki_list,
    "wiki show": _wiki_show,
    "wiki get": _wiki_get,
}


def add_wiki_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    wiki = commands.add_parser("wiki", help="read a knowledge base's wiki pages")
    wiki_commands = wiki.add_subparsers(dest="wiki_command", metavar="COMMAND", required=True)
    listing = wiki_commands.add_parser("list", help="list a knowledge base's pages by title")
    listing.add_argument("kb_id", metavar="KB_ID")
    listing.add_argument("--query", default="", help="only pages whose title or slug has this")
    show = wiki_commands.add_parser("show", help="show a page by its slug")
    show.add_argument("kb_id", metavar="KB_ID")
    show.add_argument("slug", metavar="SLUG")
    get = wiki_commands.add_parser("get", help="show a page by its id")
    get.add_argument("page_id", metavar="PAGE_ID")
    for name, sub in (("list", listing), ("show", show), ("get", get)):
        sub.add_argument("--json", action="store_true", help="print the message(s) as JSON")
        sub.set_defaults(command=f"wiki {name}")
