"""Stored files, access grants and search: `sluice resources|grant|revoke-grant|fetch|
search`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sluice_client._app import JsonFlag, Output, app, connect
from sluice_client._arguments import one_of
from sluice_client._output import search_hit_line
from sluice_client._proto.sluice import v1

_SEARCH_MODES = {m.name.lower(): m for m in v1.SearchMode if m != v1.SearchMode.UNSPECIFIED}

PANEL = "Search and stored files"


@app.command("resources", rich_help_panel=PANEL)
def _resources(
    ctx: typer.Context,
    knowledge_id: Annotated[str, typer.Argument(metavar="ID")],
    as_json: JsonFlag = False,
) -> None:
    """List a knowledge's stored files (original, extracted images)."""
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        for resource in client.list_resources(knowledge_id):
            out.line(resource)


@app.command("grant", rich_help_panel=PANEL)
def _grant(
    ctx: typer.Context,
    subject: Annotated[
        str,
        typer.Argument(metavar="ID|REF", help="a knowledge id (its original) or a resource:// ref"),
    ],
    ttl: Annotated[int, typer.Option(help="seconds (default: the server's)")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Create an expiring token that opens a knowledge's original or an image."""
    with connect(ctx) as client:
        if subject.startswith("resource://"):
            grant = client.create_access_grant(resource_ref=subject, ttl_seconds=ttl)
        else:
            grant = client.create_access_grant(knowledge_id=subject, ttl_seconds=ttl)
    Output(ctx, as_json).message(grant)


@app.command("revoke-grant", rich_help_panel=PANEL)
def _revoke_grant(
    ctx: typer.Context,
    token: Annotated[str | None, typer.Option(help="the grant of this token")] = None,
    ref: Annotated[
        str | None, typer.Option(metavar="REF", help="every grant to this resource:// ref")
    ] = None,
    knowledge: Annotated[
        str | None, typer.Option(metavar="ID", help="every grant to this knowledge's files")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Take access grants back before they expire (one of --token, --ref, --knowledge)."""
    name, value = one_of(token=token, ref=ref, knowledge=knowledge)
    keyword = {"token": "token", "ref": "resource_ref", "knowledge": "knowledge_id"}[name]
    with connect(ctx) as client:
        revoked = client.revoke_access_grant(**{keyword: value})
    Output(ctx, as_json).text(f"revoked {revoked}", revoked=revoked)


@app.command("fetch", rich_help_panel=PANEL)
def _fetch(
    ctx: typer.Context,
    token: Annotated[str, typer.Argument(metavar="TOKEN")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", metavar="FILE", help="default: stdout")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Download the file an access grant opens."""
    with connect(ctx) as client:
        if output is None:  # the bytes alone on stdout, for a pipe
            client.download_resource(token, sys.stdout.buffer)
            sys.stdout.buffer.flush()
            return
        meta = client.download_resource(token, output)
    Output(ctx, as_json).text(
        f"wrote {meta.size} bytes of {meta.content_type} ({meta.file_name}) to {output}",
        **meta.to_dict(),
        output=str(output),
    )


@app.command("search", rich_help_panel=PANEL)
def _search(
    ctx: typer.Context,
    kb_ids: Annotated[str, typer.Argument(metavar="KB_ID[,KB_ID...]")],
    query: Annotated[str, typer.Argument(metavar="QUERY")],
    top_k: int = 10,
    mode: Annotated[
        str | None, typer.Option(help=f"one of {', '.join(sorted(_SEARCH_MODES))}")
    ] = None,
    graph_hops: Annotated[
        int | None,
        typer.Option(metavar="N", help="add chunks related through the graph, N (0-2) away"),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Search knowledge bases (a line per hit: score, title, snippet)."""
    if mode is not None and mode not in _SEARCH_MODES:
        raise typer.BadParameter(f"unknown mode {mode!r}", param_hint="--mode")
    expansion = None if graph_hops is None else v1.GraphExpansion(hops=graph_hops)
    with connect(ctx) as client:
        found = client.search(
            query,
            [kb_id for kb_id in kb_ids.split(",") if kb_id],
            top_k=top_k,
            mode=_SEARCH_MODES[mode] if mode else None,
            graph_expansion=expansion,
        )
    out = Output(ctx, as_json)
    for result in found:
        if out.json:
            out.line(result)
        else:
            out.text(search_hit_line(result))
