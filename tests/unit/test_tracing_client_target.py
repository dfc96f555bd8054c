"""The server.address/server.port a CLIENT span gets from each form of a gRPC target."""

from __future__ import annotations

import pytest

from workers.observability.tracing_client import _server_attributes


@pytest.mark.parametrize(
    ("target", "attributes"),
    [
        ("reader:50051", {"server.address": "reader", "server.port": 50051}),
        ("127.0.0.1:5", {"server.address": "127.0.0.1", "server.port": 5}),
        ("[::1]:7", {"server.address": "::1", "server.port": 7}),
        ("dns:///reader:50051", {"server.address": "reader", "server.port": 50051}),
        ("ipv4:10.0.0.1:9", {"server.address": "10.0.0.1", "server.port": 9}),
        ("ipv6:[::1]:50051", {"server.address": "::1", "server.port": 50051}),
        ("unix:/tmp/reader.sock", {"server.address": "unix:/tmp/reader.sock"}),
    ],
)
def test_target_forms(target: str, attributes: dict[str, str | int]) -> None:
    assert _server_attributes(target) == attributes
