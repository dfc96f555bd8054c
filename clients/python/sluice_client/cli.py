"""`sluice`: the command line over `SluiceClient`.

Exit codes: 0 success; 1 a watched knowledge ended failed or cancelled, or a batch
delete left some knowledges undeleted; 2 an error (printed to stderr as
`error: <CODE>: <message>`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from sluice_client._arguments import key_value
from sluice_client._edit_commands import EDIT_COMMANDS, add_edit_commands
from sluice_client._faq_entry_commands import FAQ_ENTRY_COMMANDS, add_faq_entry_commands
from sluice_client._faq_import_commands import FAQ_IMPORT_COMMANDS, add_faq_import_commands
from sluice_client._graph_commands import GRAPH_COMMANDS, add_graph_commands
from sluice_client._output import (
    UNSUCCESSFUL,
    SpanChangePrinter,
    error_lines,
    final_status_line,
    search_hit_line,
    to_json,
    to_json_line,
)
from sluice_client._proto.sluice import v1
from sluice_client._wiki_commands import WIKI_COMMANDS, add_wiki_commands
from sluice_client.client import SluiceClient
from sluice_client.errors import SluiceError, SluiceRpcError

DEFAULT_TARGET = "127.0.0.1:50051"
DEFAULT_WATCH_SECONDS = 3600.0

Command = Callable[[SluiceClient, argparse.Namespace], int]

_PARSE_STATUSES = {s.name.lower(): s for s in v1.ParseStatus if s != v1.ParseStatus.UNSPECIFIED}
_SEARCH_MODES = {m.name.lower(): m for m in v1.SearchMode if m != v1.SearchMode.UNSPECIFIED}


def _out(line: str) -> None:
    print(line, flush=True)


def _watch(client: SluiceClient, knowledge_id: str, timeout: float) -> int:
    knowledge = client.wait_until_done(knowledge_id, timeout, on_event=SpanChangePrinter(_out))
    _out(final_status_line(knowledge))
    return 1 if knowledge.parse_status in UNSUCCESSFUL else 0


def _kb_create(client: SluiceClient, args: argparse.Namespace) -> int:
    config = None
    if args.chunk_size is not None or args.chunk_overlap is not None:
        chunking = v1.ChunkingConfig(
            chunk_size=args.chunk_size or 0, chunk_overlap=args.chunk_overlap
        )
        config = v1.KnowledgeBaseConfig(chunking=chunking)
    kb = client.create_knowledge_base(args.name, description=args.description, config=config)
    _out(to_json(kb))
    return 0


def _kb_list(client: SluiceClient, args: argparse.Namespace) -> int:
    for kb in client.list_knowledge_bases():
        _out(to_json_line(kb))
    return 0


def _kb_get(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.get_knowledge_base(args.id)))
    return 0


def _kb_delete(client: SluiceClient, args: argparse.Namespace) -> int:
    client.delete_knowledge_base(args.id)
    _out(f"deleted {args.id}")
    return 0


def _kb_profile(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(f"queued {client.generate_knowledge_base_profile(args.id)}")
    return 0


def _upload(client: SluiceClient, args: argparse.Namespace) -> int:
    knowledge = client.upload_file(args.kb_id, args.file, metadata=dict(args.meta))
    _out(to_json(knowledge))
    return _watch(client, knowledge.id, args.timeout) if args.watch else 0


def _import_url(client: SluiceClient, args: argparse.Namespace) -> int:
    knowledge = client.create_from_url(
        args.kb_id, args.url, title=args.title, file_name=args.file_name, file_type=args.file_type
    )
    _out(to_json(knowledge))
    return _watch(client, knowledge.id, args.timeout) if args.watch else 0


def _manual(client: SluiceClient, args: argparse.Namespace) -> int:
    content = args.content if args.file is None else Path(args.file).read_text(encoding="utf-8")
    knowledge = client.create_manual(args.kb_id, args.title, content, publish=not args.draft)
    _out(to_json(knowledge))
    return 0


def _get(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.get_knowledge(args.id)))
    return 0


def _list(client: SluiceClient, args: argparse.Namespace) -> int:
    statuses = [_PARSE_STATUSES[name] for name in args.status]
    for knowledge in client.list_knowledge(args.kb_id, statuses=statuses, keyword=args.keyword):
        _out(to_json_line(knowledge))
    return 0


def _spans(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.get_spans(args.id)))
    return 0


def _watch_command(client: SluiceClient, args: argparse.Namespace) -> int:
    return _watch(client, args.id, args.timeout)


def _chunks(client: SluiceClient, args: argparse.Namespace) -> int:
    for chunk in client.list_chunks(args.id):
        _out(to_json_line(chunk))
    return 0


def _search(client: SluiceClient, args: argparse.Namespace) -> int:
    kb_ids = [kb_id for kb_id in args.kb_ids.split(",") if kb_id]
    mode = _SEARCH_MODES[args.mode] if args.mode else None
    expansion = None if args.graph_hops is None else v1.GraphExpansion(hops=args.graph_hops)
    found = client.search(
        args.query, kb_ids, top_k=args.top_k, mode=mode, graph_expansion=expansion
    )
    for result in found:
        _out(search_hit_line(result))
    return 0


def _delete(client: SluiceClient, args: argparse.Namespace) -> int:
    client.delete_knowledge(args.id)
    _out(f"deleted {args.id}")
    return 0


def _reparse(client: SluiceClient, args: argparse.Namespace) -> int:
    config = None
    if args.chunk_size is not None or args.chunk_overlap is not None:
        chunking = v1.ChunkingConfig(
            chunk_size=args.chunk_size or 0, chunk_overlap=args.chunk_overlap
        )
        config = v1.ProcessConfig(chunking=chunking)
    knowledge = client.reparse(args.id, process_config=config)
    _out(to_json(knowledge))
    return _watch(client, knowledge.id, args.timeout) if args.watch else 0


def _cancel(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.cancel_parse(args.id)))
    return 0


def _resources(client: SluiceClient, args: argparse.Namespace) -> int:
    for resource in client.list_resources(args.id):
        _out(to_json_line(resource))
    return 0


def _grant(client: SluiceClient, args: argparse.Namespace) -> int:
    # args.target is the server's address.
    subject = (
        {"resource_ref": args.subject}
        if args.subject.startswith("resource://")
        else {"knowledge_id": args.subject}
    )
    _out(to_json(client.create_access_grant(**subject, ttl_seconds=args.ttl)))
    return 0


def _revoke_grant(client: SluiceClient, args: argparse.Namespace) -> int:
    revoked = client.revoke_access_grant(
        token=args.token or "", resource_ref=args.ref or "", knowledge_id=args.knowledge or ""
    )
    _out(f"revoked {revoked}")
    return 0


def _fetch(client: SluiceClient, args: argparse.Namespace) -> int:
    if args.output is None:  # the bytes alone on stdout, for a pipe
        client.download_resource(args.token, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return 0
    meta = client.download_resource(args.token, args.output)
    _out(f"wrote {meta.size} bytes of {meta.content_type} ({meta.file_name}) to {args.output}")
    return 0


def _batch_delete(client: SluiceClient, args: argparse.Namespace) -> int:
    result = client.batch_delete_knowledge(args.ids)
    _out(f"deleted {result.deleted}")
    for knowledge_id in result.failed_ids:
        _out(f"not deleted {knowledge_id}")
    return 1 if result.failed_ids else 0


COMMANDS: dict[str, Command] = {
    "kb create": _kb_create,
    "kb list": _kb_list,
    "kb get": _kb_get,
    "kb delete": _kb_delete,
    "kb profile": _kb_profile,
    "upload": _upload,
    "import-url": _import_url,
    "manual": _manual,
    "get": _get,
    "list": _list,
    "spans": _spans,
    "watch": _watch_command,
    "chunks": _chunks,
    "search": _search,
    "delete": _delete,
    "reparse": _reparse,
    "cancel": _cancel,
    "batch-delete": _batch_delete,
    "resources": _resources,
    "grant": _grant,
    "revoke-grant": _revoke_grant,
    "fetch": _fetch,
    **EDIT_COMMANDS,
    **GRAPH_COMMANDS,
    **WIKI_COMMANDS,
    **FAQ_ENTRY_COMMANDS,
    **FAQ_IMPORT_COMMANDS,
}


def _add_watch_timeout(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_WATCH_SECONDS,
        help="seconds to wait for the processing to end (default %(default)s)",
    )


def _add_kb_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    kb = commands.add_parser("kb", help="manage knowledge bases")
    kb_commands = kb.add_subparsers(dest="kb_command", metavar="COMMAND", required=True)
    create = kb_commands.add_parser("create", help="create a knowledge base")
    create.add_argument("name", metavar="NAME")
    create.add_argument("--description", default="")
    create.add_argument("--chunk-size", type=int, help="target chunk size in characters")
    create.add_argument("--chunk-overlap", type=int, help="characters shared by neighbours")
    create.set_defaults(command="kb create")
    kb_commands.add_parser("list", help="list knowledge bases").set_defaults(command="kb list")
    for name, help_text in (
        ("get", "get a knowledge base"),
        ("delete", "delete a knowledge base"),
        ("profile", "write a knowledge base's profile now (its summary model describes it)"),
    ):
        sub = kb_commands.add_parser(name, help=help_text)
        sub.add_argument("id", metavar="ID")
        sub.set_defaults(command=f"kb {name}")


def _add_knowledge_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    upload = commands.add_parser("upload", help="upload a file into a knowledge base")
    upload.add_argument("kb_id", metavar="KB_ID")
    upload.add_argument("file", metavar="FILE")
    upload.add_argument("--watch", action="store_true", help="follow the processing")
    upload.add_argument(
        "--meta", nargs="+", action="extend", type=key_value, default=[], metavar="KEY=VALUE"
    )
    _add_watch_timeout(upload)

    import_url = commands.add_parser(
        "import-url", help="import a file or a web page from a URL (the server fetches it)"
    )
    import_url.add_argument("kb_id", metavar="KB_ID")
    import_url.add_argument("url", metavar="URL")
    import_url.add_argument("--title", default="", help="default: the page's or file's name")
    import_url.add_argument(
        "--file-name", default="", help="import as a file of this name (its extension counts)"
    )
    import_url.add_argument(
        "--file-type", default="", help="import as a file of this type (e.g. pdf), not a page"
    )
    import_url.add_argument("--watch", action="store_true", help="follow the processing")
    _add_watch_timeout(import_url)

    manual = commands.add_parser("manual", help="create a knowledge from Markdown text")
    manual.add_argument("kb_id", metavar="KB_ID")
    manual.add_argument("title", metavar="TITLE")
    source = manual.add_mutually_exclusive_group(required=True)
    source.add_argument("--content", metavar="TEXT")
    source.add_argument("--file", metavar="PATH", help="a UTF-8 Markdown file")
    manual.add_argument("--draft", action="store_true", help="save without processing")

    listing = commands.add_parser("list", help="list the knowledges of a knowledge base")
    listing.add_argument("kb_id", metavar="KB_ID")
    listing.add_argument(
        "--status", nargs="+", action="extend", choices=sorted(_PARSE_STATUSES), default=[]
    )
    listing.add_argument("--keyword", default="", help="match title or file name")

    watch = commands.add_parser("watch", help="follow a knowledge's processing")
    watch.add_argument("id", metavar="ID")
    _add_watch_timeout(watch)

    for name, help_text in (
        ("get", "show a knowledge"),
        ("spans", "show the spans of a knowledge's latest attempt"),
        ("chunks", "list a knowledge's chunks"),
        ("delete", "delete a knowledge"),
        ("cancel", "stop a knowledge's processing"),
    ):
        commands.add_parser(name, help=help_text).add_argument("id", metavar="ID")

    reparse = commands.add_parser("reparse", help="process a knowledge again (a new attempt)")
    reparse.add_argument("id", metavar="ID")
    reparse.add_argument("--chunk-size", type=int, help="override the chunk size")
    reparse.add_argument("--chunk-overlap", type=int, help="override the chunk overlap")
    reparse.add_argument("--watch", action="store_true", help="follow the new attempt")
    _add_watch_timeout(reparse)

    batch_delete = commands.add_parser("batch-delete", help="delete several knowledges")
    batch_delete.add_argument("ids", metavar="ID", nargs="+")

    resources = commands.add_parser(
        "resources", help="list a knowledge's stored files (original, extracted images)"
    )
    resources.add_argument("id", metavar="ID")

    grant = commands.add_parser(
        "grant", help="create an expiring token that opens a knowledge's original or an image"
    )
    grant.add_argument(
        "subject", metavar="ID|REF", help="a knowledge id (its original) or a resource:// ref"
    )
    grant.add_argument("--ttl", type=int, default=0, help="seconds (default: the server's)")

    revoke = commands.add_parser("revoke-grant", help="take access grants back before they expire")
    which = revoke.add_mutually_exclusive_group(required=True)
    which.add_argument("--token", help="the grant of this token")
    which.add_argument("--ref", metavar="REF", help="every grant to this resource:// ref")
    which.add_argument("--knowledge", metavar="ID", help="every grant to this knowledge's files")

    fetch = commands.add_parser("fetch", help="download the file an access grant opens")
    fetch.add_argument("token", metavar="TOKEN")
    fetch.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")

    search = commands.add_parser("search", help="search knowledge bases")
    search.add_argument("kb_ids", metavar="KB_ID[,KB_ID...]")
    search.add_argument("query", metavar="QUERY")
    search.add_argument("--top-k", type=int, default=10)
    search.add_argument("--mode", choices=sorted(_SEARCH_MODES))
    search.add_argument(
        "--graph-hops",
        type=int,
        metavar="N",
        help="add chunks related through the knowledge graph, N (0 to 2) relations away",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sluice", description="Sluice command line client")
    parser.add_argument(
        "--target",
        default=os.environ.get("SLUICE_TARGET", DEFAULT_TARGET),
        help="API server address (env SLUICE_TARGET, default %(default)s)",
    )
    parser.add_argument(
        "--api-key", default=os.environ.get("SLUICE_API_KEY"), help="(env SLUICE_API_KEY)"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_kb_commands(commands)
    _add_knowledge_commands(commands)
    add_edit_commands(commands)
    add_graph_commands(commands)
    add_wiki_commands(commands)
    add_faq_entry_commands(commands)
    add_faq_import_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with SluiceClient(args.target, api_key=args.api_key) as client:
            return COMMANDS[args.command](client, args)
    except SluiceRpcError as error:
        for line in error_lines(error):
            print(line, file=sys.stderr)
    except (SluiceError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
    except KeyboardInterrupt:
        return 130
    return 2
