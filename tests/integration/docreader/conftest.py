"""A real docreader gRPC server on loopback, started in-process for each test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from sluice.docreader.v1 import docreader_pb2_grpc

from server.docreader.server import build_docreader_server
from workers.docreader_client import DocReaderClient

MESSAGE_LIMIT = 4 << 20


@pytest.fixture(scope="module")
def storage_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("storage")


@pytest.fixture(scope="module")
def docreader_target(storage_dir: Path) -> Iterator[str]:
    server, port = build_docreader_server(
        "127.0.0.1:0", max_workers=4, storage_base_dir=str(storage_dir),
        max_message_bytes=MESSAGE_LIMIT,
    )
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(grace=None).wait()


@pytest.fixture()
def client(docreader_target: str) -> Iterator[DocReaderClient]:
    with DocReaderClient(docreader_target, timeout_s=60, max_message_bytes=MESSAGE_LIMIT) as c:
        yield c


@pytest.fixture()
def channel(docreader_target: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(
        docreader_target,
        options=[("grpc.max_receive_message_length", 64 << 20),
                 ("grpc.max_send_message_length", 64 << 20)],
    ) as chan:
        yield chan


@pytest.fixture()
def stub(channel: grpc.Channel) -> docreader_pb2_grpc.DocReaderServiceStub:
    return docreader_pb2_grpc.DocReaderServiceStub(channel)
