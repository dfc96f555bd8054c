"""`sluice kb create|list|get|delete|profile`: knowledge bases."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from sluice_client._app import JsonFlag, Output, connect, group
from sluice_client._proto.sluice import v1

kb = group("kb", "manage knowledge bases", "Knowledge bases")

KbId = Annotated[str, typer.Argument(metavar="ID")]


class KbType(StrEnum):
    DOCUMENT = "document"
    FAQ = "faq"


_KB_TYPES = {KbType.DOCUMENT: v1.KnowledgeBaseType.DOCUMENT, KbType.FAQ: v1.KnowledgeBaseType.FAQ}


@kb.command("create")
def _create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME")],
    description: str = "",
    chunk_size: Annotated[int | None, typer.Option(help="target chunk size in characters")] = None,
    chunk_overlap: Annotated[
        int | None, typer.Option(help="characters shared by neighbours")
    ] = None,
    kb_type: Annotated[
        KbType, typer.Option("--type", help="document (files, URLs, text) or faq (entries)")
    ] = KbType.DOCUMENT,
    as_json: JsonFlag = False,
) -> None:
    """Create a knowledge base."""
    config = None
    if chunk_size is not None or chunk_overlap is not None:
        chunking = v1.ChunkingConfig(chunk_size=chunk_size or 0, chunk_overlap=chunk_overlap)
        config = v1.KnowledgeBaseConfig(chunking=chunking)
    with connect(ctx) as client:
        created = client.create_knowledge_base(
            name, description=description, config=config, kb_type=_KB_TYPES[kb_type]
        )
    Output(ctx, as_json).message(created)


@kb.command("list")
def _list(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """List knowledge bases (a JSON line each)."""
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        for found in client.list_knowledge_bases():
            out.line(found)


@kb.command("get")
def _get(ctx: typer.Context, kb_id: KbId, as_json: JsonFlag = False) -> None:
    """Show a knowledge base."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.get_knowledge_base(kb_id))


@kb.command("delete")
def _delete(ctx: typer.Context, kb_id: KbId, as_json: JsonFlag = False) -> None:
    """Delete a knowledge base."""
    with connect(ctx) as client:
        client.delete_knowledge_base(kb_id)
    Output(ctx, as_json).text(f"deleted {kb_id}", deleted=kb_id)


@kb.command("profile")
def _profile(ctx: typer.Context, kb_id: KbId, as_json: JsonFlag = False) -> None:
    """Write a knowledge base's profile now (its summary model describes it)."""
    with connect(ctx) as client:
        job_id = client.generate_knowledge_base_profile(kb_id)
    Output(ctx, as_json).text(f"queued {job_id}", job_id=job_id)
