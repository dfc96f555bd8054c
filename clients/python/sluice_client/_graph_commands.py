"""The CLI's commands for the knowledge graph: `sluice graph entities|entity|neighbours|
sources`, one JSON object (or one per line) each."""

from __future__ import annotations

from typing import Annotated

import typer

from sluice_client._app import JsonFlag, Output, connect, group

graph = group("graph", "read a knowledge base's knowledge graph", "Graph and wiki")

EntityId = Annotated[str, typer.Argument(metavar="ENTITY_ID")]


@graph.command("entities")
def _entities(
    ctx: typer.Context,
    kb_id: Annotated[str, typer.Argument(metavar="KB_ID")],
    name: Annotated[str, typer.Option(help="names containing this (case folded)")] = "",
    type: Annotated[str, typer.Option(help="of exactly this type")] = "",
    as_json: JsonFlag = False,
) -> None:
    """List entities, most mentioned first."""
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        for entity in client.list_entities(kb_id, name_contains=name, type=type):
            out.line(entity)


@graph.command("entity")
def _entity(ctx: typer.Context, entity_id: EntityId, as_json: JsonFlag = False) -> None:
    """Show an entity."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.get_entity(entity_id))


@graph.command("neighbours")
def _neighbours(
    ctx: typer.Context,
    entity_id: EntityId,
    depth: Annotated[int, typer.Option(help="1 to 3")] = 1,
    max: Annotated[int, typer.Option("--max", help="most entities (0: the server's)")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """An entity and what lies within --depth relations of it."""
    with connect(ctx) as client:
        found = client.get_neighbourhood(entity_id, depth=depth, max_entities=max)
    Output(ctx, as_json).message(found)


@graph.command("sources")
def _sources(
    ctx: typer.Context,
    relation_id: Annotated[str, typer.Argument(metavar="RELATION_ID")],
    as_json: JsonFlag = False,
) -> None:
    """The chunks a relation was found in."""
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        for source in client.get_relation_sources(relation_id):
            out.line(source)
