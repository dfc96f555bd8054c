"""Clients of the module's docreader server (the shared ``docreader_target`` fixture)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from sluice.docreader.v1 import docreader_pb2_grpc

from tests.support.fixtures import DOCREADER_MESSAGE_LIMIT as MESSAGE_LIMIT
from workers.docreader_client import DocReaderClient


@pytest.fixture()
def client(docreader_target: str) -> Iterator[DocReaderClient]:
    with DocReaderClient(docreader_target, timeout_s=60, max_message_bytes=MESSAGE_LIMIT) as c:
        yield c


@pytest.fixture()
def channel(docreader_target: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(
        docreader_target,
        options=[
            ("grpc.max_receive_message_length", 64 << 20),
            ("grpc.max_send_message_length", 64 << 20),
        ],
    ) as chan:
        yield chan


@pytest.fixture()
def stub(channel: grpc.Channel) -> docreader_pb2_grpc.DocReaderServiceStub:
    return docreader_pb2_grpc.DocReaderServiceStub(channel)
