"""Ports this process's own services listen on that only show at run time: the API bound to
``:0``, the gRPC server pymilvus starts for a milvus-lite file. The SSRF policy blocks them
with the configured ones (Settings.service_ports), so allow-listing 127.0.0.1 cannot reach
them; whoever binds such a port adds it here before serving."""

from __future__ import annotations

import threading

_lock = threading.Lock()
_ports: set[int] = set()


def add_service_port(port: int) -> None:
    if 0 < port <= 65535:
        with _lock:
            _ports.add(port)


def discard_service_port(port: int) -> None:
    """The service stopped listening on ``port``."""
    with _lock:
        _ports.discard(port)


def runtime_service_ports() -> frozenset[int]:
    with _lock:
        return frozenset(_ports)
