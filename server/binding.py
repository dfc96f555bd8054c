"""Binding a gRPC server to its address, exclusively.

gRPC turns SO_REUSEPORT on by default, so a second server on a taken port binds without
error and the kernel then splits connections between the two at random. Every Sluice
server passes EXCLUSIVE_BIND and goes through listen(), which turns a taken port into
BindError.
"""

from __future__ import annotations

import grpc

EXCLUSIVE_BIND = ("grpc.so_reuseport", 0)


class BindError(OSError):
    """The server could not listen on its address (taken, or not this machine's)."""


def listen(server: grpc.Server | grpc.aio.Server, address: str) -> int:
    """Adds the insecure port; returns the port bound (non-zero for a unix socket too)."""
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:
        port = 0
    if port == 0:
        raise BindError(
            f"cannot listen on {address}: the address is already in use (is another "
            "server running?) or not an address of this machine"
        )
    return port
