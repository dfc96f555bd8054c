"""TLS material for our gRPC servers and clients: PEM files read and checked once at start.

A missing, unreadable or non-PEM file, or a key that is not its certificate's, is a
TlsFileError naming the file, raised before any server listens or any channel is opened, so
a deployment with a wrong path stops at once with one clear line instead of failing every
call's handshake later.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

from core.errors import SluiceError

_PEM_MARKER = b"-----BEGIN "


class TlsFileError(SluiceError, ValueError):
    """A certificate, key or CA bundle file cannot be used."""


def read_pem(path: Path) -> bytes:
    """The bytes of a PEM file; TlsFileError when it is missing, unreadable or not PEM."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TlsFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if _PEM_MARKER not in data:
        raise TlsFileError(f"{path} is not a PEM file (no '-----BEGIN' line)")
    return data


def check_key_pair(cert: Path, key: Path) -> None:
    """TlsFileError unless ``key`` is the private key of the certificate in ``cert``: gRPC
    would only fail to listen, with a message about the address."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        # An encrypted key (which gRPC cannot use either) fails here instead of prompting.
        context.load_cert_chain(cert, key, password=lambda: b"")
    except OSError as exc:  # ssl.SSLError among them
        raise TlsFileError(
            f"{key} is not the private key of the certificate in {cert} "
            f"({getattr(exc, 'reason', None) or exc})"
        ) from None


@dataclass(frozen=True)
class ServerTls:
    """A server's certificate chain and key; with ``client_ca``, clients must present a
    certificate signed by it (mutual TLS)."""

    cert_chain: bytes
    private_key: bytes
    client_ca: bytes | None = None

    @classmethod
    def from_files(cls, cert: Path, key: Path, client_ca: Path | None = None) -> ServerTls:
        tls = cls(read_pem(cert), read_pem(key), read_pem(client_ca) if client_ca else None)
        check_key_pair(cert, key)
        return tls


@dataclass(frozen=True)
class ClientTls:
    """What a client verifies the server with (None: the system's roots) and, for mutual
    TLS, its own certificate chain and key."""

    ca: bytes | None = None
    cert_chain: bytes | None = None
    private_key: bytes | None = None

    @classmethod
    def from_files(
        cls, ca: Path | None, cert: Path | None = None, key: Path | None = None
    ) -> ClientTls:
        if (cert is None) != (key is None):
            raise TlsFileError("a client certificate needs its key, and a key its certificate")
        tls = cls(*(read_pem(path) if path else None for path in (ca, cert, key)))
        if cert is not None and key is not None:
            check_key_pair(cert, key)
        return tls
