"""The commands on knowledges: `sluice upload|import-url|manual|get|list|spans|watch|chunks|
delete|reparse|cancel|batch-delete`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sluice_client import _exit_codes
from sluice_client._app import DEFAULT_WATCH_SECONDS, JsonFlag, Output, WatchTimeout, app, connect
from sluice_client._arguments import key_values, text_or_file
from sluice_client._proto.sluice import v1
from sluice_client._watch_view import follow

_PARSE_STATUSES = {s.name.lower(): s for s in v1.ParseStatus if s != v1.ParseStatus.UNSPECIFIED}

KbId = Annotated[str, typer.Argument(metavar="KB_ID")]
KnowledgeId = Annotated[str, typer.Argument(metavar="ID")]
Watch = Annotated[bool, typer.Option("--watch", help="follow the processing")]

PANEL = "Documents"


@app.command("upload", rich_help_panel=PANEL)
def _upload(
    ctx: typer.Context,
    kb_id: KbId,
    file: Annotated[Path, typer.Argument(metavar="FILE")],
    meta: Annotated[
        list[str] | None, typer.Option(metavar="KEY=VALUE", help="metadata (repeat)")
    ] = None,
    watch: Watch = False,
    timeout: WatchTimeout = DEFAULT_WATCH_SECONDS,
    as_json: JsonFlag = False,
) -> None:
    """Upload a file into a knowledge base (a folder: `sluice ingest`)."""
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        knowledge = client.upload_file(kb_id, file, metadata=key_values(meta or []))
        out.message(knowledge)
        if watch:
            raise typer.Exit(follow(client, knowledge.id, timeout, out))


@app.command("import-url", rich_help_panel=PANEL)
def _import_url(
    ctx: typer.Context,
    kb_id: KbId,
    url: Annotated[str, typer.Argument(metavar="URL")],
    title: Annotated[str, typer.Option(help="default: the page's or file's name")] = "",
    file_name: Annotated[
        str, typer.Option(help="import as a file of this name (its extension counts)")
    ] = "",
    file_type: Annotated[
        str, typer.Option(help="import as a file of this type (e.g. pdf), not a page")
    ] = "",
    watch: Watch = False,
    timeout: WatchTimeout = DEFAULT_WATCH_SECONDS,
    as_json: JsonFlag = False,
) -> None:
    """Import a file or a web page from a URL (the server fetches it)."""
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        knowledge = client.create_from_url(
            kb_id, url, title=title, file_name=file_name, file_type=file_type
        )
        out.message(knowledge)
        if watch:
            raise typer.Exit(follow(client, knowledge.id, timeout, out))


@app.command("manual", rich_help_panel=PANEL)
def _manual(
    ctx: typer.Context,
    kb_id: KbId,
    title: Annotated[str, typer.Argument(metavar="TITLE")],
    content: Annotated[str | None, typer.Option(metavar="TEXT")] = None,
    file: Annotated[Path | None, typer.Option(metavar="PATH", help="a UTF-8 Markdown file")] = None,
    draft: Annotated[bool, typer.Option("--draft", help="save without processing")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Create a knowledge from Markdown text (--content or --file)."""
    text = text_or_file(content, file)
    with connect(ctx) as client:
        knowledge = client.create_manual(kb_id, title, text, publish=not draft)
    Output(ctx, as_json).message(knowledge)


@app.command("get", rich_help_panel=PANEL)
def _get(ctx: typer.Context, knowledge_id: KnowledgeId, as_json: JsonFlag = False) -> None:
    """Show a knowledge."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.get_knowledge(knowledge_id))


@app.command("list", rich_help_panel=PANEL)
def _list(
    ctx: typer.Context,
    kb_id: KbId,
    status: Annotated[
        list[str] | None,
        typer.Option(
            metavar="STATUS", help=f"only these (repeat): {', '.join(sorted(_PARSE_STATUSES))}"
        ),
    ] = None,
    keyword: Annotated[str, typer.Option(help="match title or file name")] = "",
    as_json: JsonFlag = False,
) -> None:
    """List the knowledges of a knowledge base (a JSON line each)."""
    unknown = sorted(set(status or []) - set(_PARSE_STATUSES))
    if unknown:
        raise typer.BadParameter(f"unknown status {', '.join(unknown)}", param_hint="--status")
    statuses = [_PARSE_STATUSES[name] for name in status or []]
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        for knowledge in client.list_knowledge(kb_id, statuses=statuses, keyword=keyword):
            out.line(knowledge)


@app.command("spans", rich_help_panel=PANEL)
def _spans(ctx: typer.Context, knowledge_id: KnowledgeId, as_json: JsonFlag = False) -> None:
    """Show the spans of a knowledge's latest attempt."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.get_spans(knowledge_id))


@app.command("watch", rich_help_panel=PANEL)
def _watch(
    ctx: typer.Context,
    knowledge_id: Annotated[str, typer.Argument(metavar="KNOWLEDGE_ID")],
    timeout: WatchTimeout = DEFAULT_WATCH_SECONDS,
    as_json: JsonFlag = False,
) -> None:
    """Follow a knowledge's processing (its span tree, live) until the attempt ends.

    Exit 0 if it completed, 1 if it failed or was cancelled.
    """
    with connect(ctx) as client:
        raise typer.Exit(follow(client, knowledge_id, timeout, Output(ctx, as_json)))


@app.command("chunks", rich_help_panel=PANEL)
def _chunks(ctx: typer.Context, knowledge_id: KnowledgeId, as_json: JsonFlag = False) -> None:
    """List a knowledge's chunks (a JSON line each)."""
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        for chunk in client.list_chunks(knowledge_id):
            out.line(chunk)


@app.command("delete", rich_help_panel=PANEL)
def _delete(ctx: typer.Context, knowledge_id: KnowledgeId, as_json: JsonFlag = False) -> None:
    """Delete a knowledge."""
    with connect(ctx) as client:
        client.delete_knowledge(knowledge_id)
    Output(ctx, as_json).text(f"deleted {knowledge_id}", deleted=knowledge_id)


@app.command("reparse", rich_help_panel=PANEL)
def _reparse(
    ctx: typer.Context,
    knowledge_id: KnowledgeId,
    chunk_size: Annotated[int | None, typer.Option(help="override the chunk size")] = None,
    chunk_overlap: Annotated[int | None, typer.Option(help="override the chunk overlap")] = None,
    watch: Annotated[bool, typer.Option("--watch", help="follow the new attempt")] = False,
    timeout: WatchTimeout = DEFAULT_WATCH_SECONDS,
    as_json: JsonFlag = False,
) -> None:
    """Process a knowledge again (a new attempt)."""
    config = None
    if chunk_size is not None or chunk_overlap is not None:
        chunking = v1.ChunkingConfig(chunk_size=chunk_size or 0, chunk_overlap=chunk_overlap)
        config = v1.ProcessConfig(chunking=chunking)
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        knowledge = client.reparse(knowledge_id, process_config=config)
        out.message(knowledge)
        if watch:
            raise typer.Exit(follow(client, knowledge.id, timeout, out))


@app.command("cancel", rich_help_panel=PANEL)
def _cancel(ctx: typer.Context, knowledge_id: KnowledgeId, as_json: JsonFlag = False) -> None:
    """Stop a knowledge's processing."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.cancel_parse(knowledge_id))


@app.command("batch-delete", rich_help_panel=PANEL)
def _batch_delete(
    ctx: typer.Context,
    knowledge_ids: Annotated[list[str], typer.Argument(metavar="ID...")],
    as_json: JsonFlag = False,
) -> None:
    """Delete several knowledges; exit 1 if some were not deleted."""
    with connect(ctx) as client:
        result = client.batch_delete_knowledge(knowledge_ids)
    out = Output(ctx, as_json)
    if out.json:
        out.line(result)
    else:
        out.text(f"deleted {result.deleted}")
        for knowledge_id in result.failed_ids:
            out.text(f"not deleted {knowledge_id}")
    if result.failed_ids:
        raise typer.Exit(_exit_codes.FAILED)
