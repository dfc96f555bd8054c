"""Full mode with the docreader on mutual TLS: the workers read the settings'
SLUICE_DOCREADER_TLS_* files and a document goes through the whole round."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient, v1

from tests.e2e.stacks import Stack, full_stack
from tests.support.certificates import make_certificates

WAIT_S = 240


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    certs = make_certificates(tmp_path_factory.mktemp("certs"))
    env = {
        "SLUICE_DOCREADER_TLS_CA": str(certs.ca),
        "SLUICE_DOCREADER_TLS_CLIENT_CERT": str(certs.client_cert),
        "SLUICE_DOCREADER_TLS_CLIENT_KEY": str(certs.client_key),
    }
    tls_flags = (
        "--tls-cert",
        str(certs.server_cert),
        "--tls-key",
        str(certs.server_key),
        "--tls-client-ca",
        str(certs.ca),
    )
    with full_stack(
        tmp_path_factory.mktemp("full-tls"), workers=1, extra_env=env, docreader_args=tls_flags
    ) as running:
        yield running


def test_a_document_is_read_through_the_tls_docreader(stack: Stack) -> None:
    assert any("TLS" in line for line in stack.processes["docreader"].lines)
    with SluiceClient(stack.target, timeout=60) as client:
        kb = client.create_knowledge_base("docreader over mTLS")
        knowledge = client.upload_file(
            kb.id,
            io.BytesIO(b"# Tidal notes\n\nThe sluice gate opens at high tide."),
            file_name="tides.md",
        )
        done = client.wait_until_done(knowledge.id, WAIT_S)
    assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
