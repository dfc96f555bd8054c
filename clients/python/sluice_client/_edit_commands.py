"""The CLI's commands for tags and for editing processed knowledge: `sluice tag …`,
`sluice set-tags`, `sluice set-metadata`, `sluice chunk …` and
`sluice regenerate-summary`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sluice_client._app import JsonFlag, Output, app, connect, group
from sluice_client._arguments import key_values, text_or_file

PANEL = "Tags and edits"
tag = group("tag", "manage the tags of a knowledge base", PANEL)
chunk = group("chunk", "edit a chunk of a processed knowledge", PANEL)

KbId = Annotated[str, typer.Argument(metavar="KB_ID")]
TagId = Annotated[str, typer.Argument(metavar="TAG_ID")]
KnowledgeId = Annotated[str, typer.Argument(metavar="KNOWLEDGE_ID")]
ChunkId = Annotated[str, typer.Argument(metavar="CHUNK_ID")]


@tag.command("create")
def _tag_create(
    ctx: typer.Context,
    kb_id: KbId,
    name: Annotated[str, typer.Argument(metavar="NAME")],
    color: Annotated[str, typer.Option(help='e.g. "#f5a623"')] = "",
    as_json: JsonFlag = False,
) -> None:
    """Create a tag."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.create_tag(kb_id, name, color=color))


@tag.command("list")
def _tag_list(ctx: typer.Context, kb_id: KbId, as_json: JsonFlag = False) -> None:
    """List a knowledge base's tags (a JSON line each)."""
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        for found in client.list_tags(kb_id):
            out.line(found)


@tag.command("rename")
def _tag_rename(
    ctx: typer.Context,
    tag_id: TagId,
    name: Annotated[str, typer.Argument(metavar="NAME")],
    as_json: JsonFlag = False,
) -> None:
    """Rename a tag."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.rename_tag(tag_id, name))


@tag.command("delete")
def _tag_delete(ctx: typer.Context, tag_id: TagId, as_json: JsonFlag = False) -> None:
    """Delete a tag and its links."""
    with connect(ctx) as client:
        unlinked = client.delete_tag(tag_id)
    Output(ctx, as_json).text(
        f"deleted {tag_id} (unlinked from {unlinked} knowledges)", deleted=tag_id, unlinked=unlinked
    )


@app.command("set-tags", rich_help_panel=PANEL)
def _set_tags(
    ctx: typer.Context,
    knowledge_id: KnowledgeId,
    tag_ids: Annotated[list[str] | None, typer.Argument(metavar="TAG_ID...")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Replace a knowledge's tags (none: clear)."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.set_knowledge_tags(knowledge_id, tag_ids or []))


@app.command("set-metadata", rich_help_panel=PANEL)
def _set_metadata(
    ctx: typer.Context,
    knowledge_id: KnowledgeId,
    entries: Annotated[list[str] | None, typer.Argument(metavar="KEY=VALUE...")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Replace a knowledge's metadata."""
    metadata = key_values(entries or [])
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.update_knowledge_metadata(knowledge_id, metadata))


@chunk.command("edit")
def _chunk_edit(
    ctx: typer.Context,
    chunk_id: ChunkId,
    content: Annotated[str | None, typer.Option(metavar="TEXT")] = None,
    file: Annotated[Path | None, typer.Option(metavar="PATH", help="a UTF-8 text file")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Replace a text chunk's content (re-indexed); --content or --file."""
    text = text_or_file(content, file)
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.update_chunk(chunk_id, text))


@chunk.command("enable")
def _chunk_enable(ctx: typer.Context, chunk_id: ChunkId, as_json: JsonFlag = False) -> None:
    """Let Search find the chunk."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.set_chunk_enabled(chunk_id, True))


@chunk.command("disable")
def _chunk_disable(ctx: typer.Context, chunk_id: ChunkId, as_json: JsonFlag = False) -> None:
    """Keep the chunk out of Search."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.set_chunk_enabled(chunk_id, False))


@app.command("regenerate-summary", rich_help_panel=PANEL)
def _regenerate_summary(
    ctx: typer.Context, knowledge_id: KnowledgeId, as_json: JsonFlag = False
) -> None:
    """Write a completed knowledge's summary again (queued)."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.regenerate_summary(knowledge_id))
