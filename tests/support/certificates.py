"""Certificates a test makes (trustme): one CA, a server certificate for 127.0.0.1 and
localhost, and a client certificate, written as PEM files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trustme


@dataclass(frozen=True)
class CertFiles:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def make_certificates(directory: Path) -> CertFiles:
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    client = ca.issue_cert("sluice-test-client")
    files = CertFiles(
        *(
            directory / name
            for name in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key")
        )
    )
    ca.cert_pem.write_to_path(str(files.ca))
    server.private_key_pem.write_to_path(str(files.server_key))
    client.private_key_pem.write_to_path(str(files.client_key))
    # The whole chain (leaf first): what a server or client presents.
    files.server_cert.write_bytes(b"".join(blob.bytes() for blob in server.cert_chain_pems))
    files.client_cert.write_bytes(b"".join(blob.bytes() for blob in client.cert_chain_pems))
    return files
