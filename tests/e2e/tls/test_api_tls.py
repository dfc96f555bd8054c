"""The API over TLS (SLUICE_API_TLS_CERT / _KEY) and mutual TLS (SLUICE_API_TLS_CLIENT_CA),
on a real lite-mode server with certificates the test makes: a client that verifies the
server with the CA works (SluiceClient, the `sluice` CLI and grpcurl -cacert), a plaintext
client is refused, and under mutual TLS a client without a certificate is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sluice_client import SluiceClient, TlsOptions, Unavailable
from sluice_client.cli import main as cli

from tests.e2e.stacks import Stack, lite_stack
from tests.support.certificates import CertFiles, make_certificates
from tests.support.grpcurl import grpcurl_binary
from tests.support.processes import PYTHONPATH, REPO


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> CertFiles:
    return make_certificates(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tls_stack(certs: CertFiles, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {
        "SLUICE_API_TLS_CERT": str(certs.server_cert),
        "SLUICE_API_TLS_KEY": str(certs.server_key),
    }
    with lite_stack(tmp_path_factory.mktemp("tls"), env) as stack:
        yield stack


@pytest.fixture(scope="module")
def mtls_stack(certs: CertFiles, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {
        "SLUICE_API_TLS_CERT": str(certs.server_cert),
        "SLUICE_API_TLS_KEY": str(certs.server_key),
        "SLUICE_API_TLS_CLIENT_CA": str(certs.ca),
    }
    with lite_stack(tmp_path_factory.mktemp("mtls"), env) as stack:
        yield stack


def grpcurl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [grpcurl_binary(), *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_a_client_verifying_the_server_works(tls_stack: Stack, certs: CertFiles) -> None:
    with SluiceClient(tls_stack.target, ca_file=certs.ca, timeout=20) as client:
        created = client.create_knowledge_base("over TLS")
        assert created.name == "over TLS"
        assert created.id in {kb.id for kb in client.list_knowledge_bases()}


def test_a_plaintext_client_is_refused(tls_stack: Stack) -> None:
    with SluiceClient(tls_stack.target, timeout=10) as client, pytest.raises(Unavailable):
        list(client.list_knowledge_bases())


def test_a_client_without_the_ca_does_not_trust_the_server(tls_stack: Stack) -> None:
    # The system's roots did not sign the test's CA: the handshake fails on the client side.
    client = SluiceClient(tls_stack.target, tls=TlsOptions(), timeout=10)
    with client, pytest.raises(Unavailable):
        list(client.list_knowledge_bases())


def test_grpcurl_with_cacert(tls_stack: Stack, certs: CertFiles) -> None:
    health = grpcurl("-cacert", str(certs.ca), tls_stack.target, "grpc.health.v1.Health/Check")
    assert health.returncode == 0, health.stderr
    assert json.loads(health.stdout) == {"status": "SERVING"}
    listed = grpcurl("-cacert", str(certs.ca), tls_stack.target, "list")
    assert "sluice.v1.KnowledgeBaseService" in listed.stdout.split()
    plaintext = grpcurl("-plaintext", tls_stack.target, "grpc.health.v1.Health/Check")
    assert plaintext.returncode != 0


def test_mutual_tls_refuses_a_client_without_a_certificate(
    mtls_stack: Stack, certs: CertFiles
) -> None:
    client = SluiceClient(mtls_stack.target, ca_file=certs.ca, timeout=10)
    with client, pytest.raises(Unavailable):
        list(client.list_knowledge_bases())
    refused = grpcurl("-cacert", str(certs.ca), mtls_stack.target, "grpc.health.v1.Health/Check")
    assert refused.returncode != 0


def test_mutual_tls_accepts_a_client_certificate(mtls_stack: Stack, certs: CertFiles) -> None:
    with SluiceClient(
        mtls_stack.target,
        ca_file=certs.ca,
        cert_file=certs.client_cert,
        key_file=certs.client_key,
        timeout=20,
    ) as client:
        assert client.create_knowledge_base("over mTLS").name == "over mTLS"
    answered = grpcurl(
        "-cacert",
        str(certs.ca),
        "-cert",
        str(certs.client_cert),
        "-key",
        str(certs.client_key),
        mtls_stack.target,
        "grpc.health.v1.Health/Check",
    )
    assert answered.returncode == 0, answered.stderr
    # A raw grpcio channel with the same files: what any other gRPC client does.
    credentials = grpc.ssl_channel_credentials(
        Path(certs.ca).read_bytes(), certs.client_key.read_bytes(), certs.client_cert.read_bytes()
    )
    with grpc.secure_channel(mtls_stack.target, credentials) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10
        )
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_the_cli_reaches_a_tls_server_with_its_ca_from_the_option_or_the_environment(
    tls_stack: Stack,
    certs: CertFiles,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = ["--target", tls_stack.target, "--json"]
    assert cli([*target, "--ca-file", str(certs.ca), "kb", "create", "cli over TLS"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["name"] == "cli over TLS"

    monkeypatch.setenv("SLUICE_CA_FILE", str(certs.ca))
    assert cli([*target, "kb", "list"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert created["id"] in {kb["id"] for kb in listed}

    # Plaintext to a TLS server: the server did not answer, exit 3.
    monkeypatch.delenv("SLUICE_CA_FILE")
    assert cli([*target, "kb", "list"]) == 3
    assert capsys.readouterr().err.startswith("error: UNAVAILABLE: the Sluice server at ")


def test_the_cli_with_tls_alone_trusts_the_system_roots(tls_stack: Stack, certs: CertFiles) -> None:
    """--tls without files: gRPC's default roots verify the server (here the test's CA,
    made the default roots by GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, in a CLI process of its
    own); a server those roots did not sign is not trusted (exit 3)."""
    sluice = Path(sys.executable).parent / "sluice"

    def run(roots: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(sluice), "--target", tls_stack.target, "--tls", "kb", "list"],
            env={"PATH": "/usr/bin:/bin", "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(roots)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    trusted = run(certs.ca)
    assert trusted.returncode == 0, trusted.stderr
    untrusted = run(certs.server_cert)  # a leaf certificate, not the CA that signed it
    assert untrusted.returncode == 3 and "UNAVAILABLE" in untrusted.stderr


def test_the_cli_speaks_mutual_tls_with_a_client_certificate(
    mtls_stack: Stack, certs: CertFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    verify = ["--target", mtls_stack.target, "--json", "--ca-file", str(certs.ca)]
    client = ["--cert-file", str(certs.client_cert), "--key-file", str(certs.client_key)]
    assert cli([*verify, *client, "kb", "create", "cli over mTLS"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "cli over mTLS"

    # The server requires a client certificate: without one the handshake fails.
    assert cli([*verify, "kb", "list"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("error: UNAVAILABLE: ") and len(err.splitlines()) == 1


def probe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.health_probe", *args],
        env={"PYTHONPATH": PYTHONPATH, "PATH": "/usr/bin:/bin"},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_containers_health_probe_speaks_tls(tls_stack: Stack, certs: CertFiles) -> None:
    # As the Kubernetes exec probe runs it: 127.0.0.1, the certificate's name given.
    host_port = tls_stack.target
    served = probe(host_port, "--tls-ca", str(certs.ca), "--tls-server-name", "localhost")
    assert served.returncode == 0, served.stderr
    assert served.stdout.strip() == f"{host_port}: SERVING"
    plaintext = probe(host_port, "--timeout-s", "3")
    assert plaintext.returncode == 1
    assert "UNAVAILABLE" in plaintext.stderr
