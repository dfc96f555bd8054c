"""The CLI's commands for tags and for editing processed knowledge: `sluice tag …`,
`sluice set-tags`, `sluice set-metadata`, `sluice chunk …` and
`sluice regenerate-summary`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from sluice_client._arguments import key_value
from sluice_client._output import to_json, to_json_line
from sluice_client.client import SluiceClient

_Command = Callable[[SluiceClient, argparse.Namespace], int]


def _out(line: str) -> None:
    print(line, flush=True)


def _tag_create(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.create_tag(args.kb_id, args.name, color=args.color)))
    return 0


def _tag_list(client: SluiceClient, args: argparse.Namespace) -> int:
    for tag in client.list_tags(args.kb_id):
        _out(to_json_line(tag))
    return 0


def _tag_rename(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.rename_tag(args.tag_id, args.name)))
    return 0


def _tag_delete(client: SluiceClient, args: argparse.Namespace) -> int:
    unlinked = client.delete_tag(args.tag_id)
    _out(f"deleted {args.tag_id} (unlinked from {unlinked} knowledges)")
    return 0


def _set_tags(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.set_knowledge_tags(args.id, args.tag_ids)))
    return 0


def _set_metadata(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.update_knowledge_metadata(args.id, dict(args.entries))))
    return 0


def _chunk_edit(client: SluiceClient, args: argparse.Namespace) -> int:
    content = args.content if args.file is None else Path(args.file).read_text(encoding="utf-8")
    _out(to_json(client.update_chunk(args.chunk_id, content)))
    return 0


def _chunk_enable(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.set_chunk_enabled(args.chunk_id, args.command == "chunk enable")))
    return 0


def _regenerate_summary(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.regenerate_summary(args.id)))
    return 0


EDIT_COMMANDS: dict[str, _Command] = {
    "tag create": _tag_create,
    "tag list": _tag_list,
    "tag rename": _tag_rename,
    "tag delete": _tag_delete,
    "set-tags": _set_tags,
    "set-metadata": _set_metadata,
    "chunk edit": _chunk_edit,
    "chunk enable": _chunk_enable,
    "chunk disable": _chunk_enable,
    "regenerate-summary": _regenerate_summary,
}


def add_edit_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tag = commands.add_parser("tag", help="manage the tags of a knowledge base")
    tag_commands = tag.add_subparsers(dest="tag_command", metavar="COMMAND", required=True)
    create = tag_commands.add_parser("create", help="create a tag")
    create.add_argument("kb_id", metavar="KB_ID")
    create.add_argument("name", metavar="NAME")
    create.add_argument("--color", default="", help='e.g. "#f5a623"')
    listing = tag_commands.add_parser("list", help="list a knowledge base's tags")
    listing.add_argument("kb_id", metavar="KB_ID")
    rename = tag_commands.add_parser("rename", help="rename a tag")
    rename.add_argument("tag_id", metavar="TAG_ID")
    rename.add_argument("name", metavar="NAME")
    delete = tag_commands.add_parser("delete", help="delete a tag and its links")
    delete.add_argument("tag_id", metavar="TAG_ID")
    for name, sub in (
        ("create", create),
        ("list", listing),
        ("rename", rename),
        ("delete", delete),
    ):
        sub.set_defaults(command=f"tag {name}")

    set_tags = commands.add_parser("set-tags", help="replace a knowledge's tags (none: clear)")
    set_tags.add_argument("id", metavar="KNOWLEDGE_ID")
    set_tags.add_argument("tag_ids", metavar="TAG_ID", nargs="*")
    set_metadata = commands.add_parser("set-metadata", help="replace a knowledge's metadata")
    set_metadata.add_argument("id", metavar="KNOWLEDGE_ID")
    set_metadata.add_argument("entries", metavar="KEY=VALUE", nargs="*", type=key_value)

    chunk = commands.add_parser("chunk", help="edit a chunk of a processed knowledge")
    chunk_commands = chunk.add_subparsers(dest="chunk_command", metavar="COMMAND", required=True)
    edit = chunk_commands.add_parser("edit", help="replace a text chunk's content (re-indexed)")
    edit.add_argument("chunk_id", metavar="CHUNK_ID")
    source = edit.add_mutually_exclusive_group(required=True)
    source.add_argument("--content", metavar="TEXT")
    source.add_argument("--file", metavar="PATH", help="a UTF-8 text file")
    edit.set_defaults(command="chunk edit")
    for name, help_text in (
        ("enable", "let Search find the chunk"),
        ("disable", "keep the chunk out of Search"),
    ):
        sub = chunk_commands.add_parser(name, help=help_text)
        sub.add_argument("chunk_id", metavar="CHUNK_ID")
        sub.set_defaults(command=f"chunk {name}")

    regenerate = commands.add_parser(
        "regenerate-summary", help="write a completed knowledge's summary again (queued)"
    )
    regenerate.add_argument("id", metavar="KNOWLEDGE_ID")
