"""Real grpcio servers on loopback, built from the official generated servicer bases."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from sluice.v1 import (
    knowledge_base_pb2_grpc,
    knowledge_pb2_grpc,
    resource_pb2_grpc,
    search_pb2_grpc,
    wiki_pb2_grpc,
)

_ADD_TO_SERVER: list[tuple[type[Any], Callable[[Any, grpc.Server], None]]] = [
    (
        knowledge_pb2_grpc.KnowledgeServiceServicer,
        knowledge_pb2_grpc.add_KnowledgeServiceServicer_to_server,
    ),
    (
        knowledge_base_pb2_grpc.KnowledgeBaseServiceServicer,
        knowledge_base_pb2_grpc.add_KnowledgeBaseServiceServicer_to_server,
    ),
    (search_pb2_grpc.SearchServiceServicer, search_pb2_grpc.add_SearchServiceServicer_to_server),
    (
        resource_pb2_grpc.ResourceServiceServicer,
        resource_pb2_grpc.add_ResourceServiceServicer_to_server,
    ),
    (wiki_pb2_grpc.WikiServiceServicer, wiki_pb2_grpc.add_WikiServiceServicer_to_server),
]

Serve = Callable[..., str]


def page_of(token: str, size: int, total: int) -> tuple[range, str]:
    """For a fake paged List RPC: the offsets of the page `token` names, and the next token
    ("" after the last page). Tokens are plain offsets."""
    start = int(token or 0)
    end = min(start + size, total)
    return range(start, end), str(end) if end < total else ""


@pytest.fixture
def serve() -> Iterator[Serve]:
    """`serve(*servicers)` starts a server on 127.0.0.1:0 and returns its target."""
    servers: list[grpc.Server] = []

    def start(*servicers: object) -> str:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        for servicer in servicers:
            for base, add in _ADD_TO_SERVER:
                if isinstance(servicer, base):
                    add(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(grace=None)
