"""The CLI's commands for the knowledge graph: `sluice graph entities|entity|neighbours|
sources`, one JSON object (or one per line) each."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from sluice_client._output import to_json, to_json_line
from sluice_client.client import SluiceClient

_Command = Callable[[SluiceClient, argparse.Namespace], int]


def _out(line: str) -> None:
    print(line, flush=True)


def _entities(client: SluiceClient, args: argparse.Namespace) -> int:
    for entity in client.list_entities(args.kb_id, name_contains=args.name, type=args.type):
        _out(to_json_line(entity))
    return 0


def _entity(client: SluiceClient, args: argparse.Namespace) -> int:
    _out(to_json(client.get_entity(args.entity_id)))
    return 0


def _neighbours(client: SluiceClient, args: argparse.Namespace) -> int:
    found = client.get_neighbourhood(args.entity_id, depth=args.depth, max_entities=args.max)
    _out(to_json(found))
    return 0


def _sources(client: SluiceClient, args: argparse.Namespace) -> int:
    for source in client.get_relation_sources(args.relation_id):
        _out(to_json_line(source))
    return 0


GRAPH_COMMANDS: dict[str, _Command] = {
    "graph entities": _entities,
    "graph entity": _entity,
    "graph neighbours": _neighbours,
    "graph sources": _sources,
}


def add_graph_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    graph = commands.add_parser("graph", help="read a knowledge base's knowledge graph")
    graph_commands = graph.add_subparsers(dest="graph_command", metavar="COMMAND", required=True)
    entities = graph_commands.add_parser("entities", help="list entities, most mentioned first")
    entities.add_argument("kb_id", metavar="KB_ID")
    entities.add_argument("--name", default="", help="names containing this (case folded)")
    entities.add_argument("--type", default="", help="of exactly this type")
    entity = graph_commands.add_parser("entity", help="show an entity")
    entity.add_argument("entity_id", metavar="ENTITY_ID")
    neighbours = graph_commands.add_parser(
        "neighbours", help="an entity and what lies within --depth relations of it"
    )
    neighbours.add_argument("entity_id", metavar="ENTITY_ID")
    neighbours.add_argument("--depth", type=int, default=1, help="1 to 3 (default 1)")
    neighbours.add_argument("--max", type=int, default=0, help="most entities (0: the server's)")
    sources = graph_commands.add_parser("sources", help="the chunks a relation was found in")
    sources.add_argument("relation_id", metavar="RELATION_ID")
    for name, sub in (
        ("entities", entities),
        ("entity", entity),
        ("neighbours", neighbours),
        ("sources", sources),
    ):
        sub.set_defaults(command=f"graph {name}")
