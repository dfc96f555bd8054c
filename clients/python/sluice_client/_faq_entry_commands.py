"""The CLI's commands for FAQ entries: `sluice faq create|list|get|update|delete|enable|
disable`, one JSON object (or one per line) each."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from sluice_client._faq_entries import faq_content
from sluice_client._output import to_json, to_json_line
from sluice_client._proto.sluice import v1
from sluice_client.client import SluiceClient

_Command = Callable[[SluiceClient, argparse.Namespace], int]


def _out(line: str) -> None:
    print(line, flush=True)


def _content(args: argparse.Namespace) -> v1.FaqEntryContent:
    return faq_content(
        args.question,
        args.answer,
        similar_questions=args.similar,
        negative_questions=args.negative,
        random_answer=args.random,
        tag_id=args.tag,
    )


def _create(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.create_faq_entry(args.kb_id, _content(args), disabled=args.disabled)))
    return 0


def _list(client: SluiceClient, args: argparse.Namespace) -> int:
    enabled = {"enabled": True, "disabled": False}.get(args.state)
    for entry in client.list_faq_entries(args.kb_id, tag_id=args.tag, enabled=enabled):
        _out(to_json_line(entry))
    return 0


def _get(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.get_faq_entry(args.kb_id, args.entry_id)))
    return 0


def _update(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.update_faq_entry(args.kb_id, args.entry_id, _content(args))))
    return 0


def _delete(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(f"deleted {client.delete_faq_entries(args.kb_id, args.entry_ids)}")
    return 0


def _enable(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(f"updated {client.set_faq_entries_enabled(args.kb_id, args.entry_ids, True)}")
    return 0


def _disable(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(f"updated {client.set_faq_entries_enabled(args.kb_id, args.entry_ids, False)}")
    return 0


FAQ_ENTRY_COMMANDS: dict[str, _Command] = {
    "faq create": _create,
    "faq list": _list,
    "faq get": _get,
    "faq update": _update,
    "faq delete": _delete,
    "faq enable": _enable,
    "faq disable": _disable,
}


def _content_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--question", required=True, help="the standard question")
    parser.add_argument("--answer", action="append", required=True, help="an answer (repeat)")
    parser.add_argument("--similar", action="append", default=[], help="a similar question")
    parser.add_argument("--negative", action="append", default=[], help="a negative question")
    parser.add_argument("--random", action="store_true", help="one answer at random per hit")
    parser.add_argument("--tag", default="", help="a tag id of the knowledge base")


def add_faq_entry_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    faq = commands.add_parser("faq", help="manage an FAQ knowledge base's entries")
    faq_commands = faq.add_subparsers(dest="faq_command", metavar="COMMAND", required=True)
    create = faq_commands.add_parser("create", help="create an entry (indexed at once)")
    create.add_argument("kb_id", metavar="KB_ID")
    _content_arguments(create)
    create.add_argument("--disabled", action="store_true", help="create it disabled")
    listing = faq_commands.add_parser("list", help="list entries in creation order")
    listing.add_argument("kb_id", metavar="KB_ID")
    listing.add_argument("--tag", default="", help="only entries with this tag id")
    listing.add_argument("--state", choices=["enabled", "disabled"], help="only these")
    get = faq_commands.add_parser("get", help="show an entry")
    update = faq_commands.add_parser("update", help="replace an entry's content")
    for sub in (get, update):
        sub.add_argument("kb_id", metavar="KB_ID")
        sub.add_argument("entry_id", metavar="ENTRY_ID")
    _content_arguments(update)
    batch = {
        "delete": "delete entries",
        "enable": "let Search find entries",
        "disable": "hide entries from Search",
    }
    for name, help_text in batch.items():
        sub = faq_commands.add_parser(name, help=help_text)
        sub.add_argument("kb_id", metavar="KB_ID")
        sub.add_argument("entry_ids", metavar="ENTRY_ID", nargs="+")
    for name, sub in faq_commands.choices.items():
        sub.set_defaults(command=f"faq {name}")
