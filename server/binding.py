"""Binding a gRPC server to its address, exclusively.

gRPC turns SO_REUSEPORT on by default, so a second server on a taken port binds without
error and the kernel then splits connections between the two at random. Every Sluice
server passes EXCLUSIVE_BIND and goes through listen(), which turns a taken port into
BindError. With a ServerTls the port serves TLS only (mutual TLS when it names a client
CA): a plaintext client's handshake then fails and it never reaches a service.
"""

from __future__ import annotations

import grpc

from core.tls import ServerTls

EXCLUSIVE_BIND = ("grpc.so_reuseport", 0)


class BindError(OSError):
    """The server could not listen on its address (taken, or not this machine's)."""


def listen(
    server: grpc.Server | grpc.aio.Server, address: str, tls: ServerTls | None = None
) -> int:
    """Adds the port (plaintext, or TLS with ``tls``); returns the port bound (non-zero for
    a unix socket too)."""
    try:
        if tls is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, server_credentials(tls))
    except RuntimeError:
        port = 0
    if port == 0:
        raise BindError(
            f"cannot listen on {address}: the address is already in use (is another "
            "server running?) or not an address of this machine"
        )
    return port


def server_credentials(tls: ServerTls) -> grpc.ServerCredentials:
    return grpc.ssl_server_credentials(
        [(tls.private_key, tls.cert_chain)],
        root_certificates=tls.client_ca,
        require_client_auth=tls.client_ca is not None,
    )
