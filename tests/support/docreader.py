"""A real docreader gRPC server on loopback, started in this process."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from server.docreader.server import build_docreader_server


@contextmanager
def docreader_server(
    *,
    max_message_bytes: int,
    max_workers: int = 2,
    storage_base_dir: str | None = None,
    **options: Any,
) -> Iterator[str]:
    """Yields the server's target (``127.0.0.1:PORT``); stopped at once afterwards.
    ``options`` are build_docreader_server's limits (memory cap, parse timeout, ...)."""
    server, port = build_docreader_server(
        "127.0.0.1:0",
        max_workers=max_workers,
        storage_base_dir=storage_base_dir,
        max_message_bytes=max_message_bytes,
        **options,
    )
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(grace=None).wait()
