"""The docreader over mutual TLS, as a full-mode worker reaches it: the workers' client with
the CA and its certificate reads a document; a plaintext client or one without a client
certificate is refused; a wrong TLS file stops `python -m server.docreader` at start."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.tls import ClientTls, ServerTls
from tests.support.certificates import CertFiles, make_certificates
from tests.support.docreader import docreader_server
from tests.support.processes import PYTHONPATH, REPO
from workers.docreader_client import DocReaderCallError, DocReaderClient

LIMIT = 8 << 20


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> CertFiles:
    return make_certificates(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def target(certs: CertFiles) -> Iterator[str]:
    tls = ServerTls.from_files(certs.server_cert, certs.server_key, certs.ca)
    with docreader_server(max_message_bytes=LIMIT, tls=tls) as address:
        yield address


def client(target: str, tls: ClientTls | None) -> DocReaderClient:
    return DocReaderClient(target, timeout_s=30, max_message_bytes=LIMIT, tls=tls)


def test_a_worker_with_its_certificate_reads(target: str, certs: CertFiles) -> None:
    tls = ClientTls.from_files(certs.ca, certs.client_cert, certs.client_key)
    reader = client(target, tls)
    try:
        outcome = reader.read(b"# Over TLS\n\nhello", file_name="a.md", file_type="md")
    finally:
        reader.close()
    assert "hello" in outcome.markdown


@pytest.mark.parametrize("who", ["plaintext", "no client certificate"])
def test_other_clients_are_refused(target: str, certs: CertFiles, who: str) -> None:
    tls = None if who == "plaintext" else ClientTls.from_files(certs.ca)
    reader = client(target, tls)
    try:
        with pytest.raises(DocReaderCallError) as refused:
            reader.list_engines()
    finally:
        reader.close()
    assert refused.value.code_name == "UNAVAILABLE"


def start(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.docreader", "--address", "127.0.0.1:0", *args],
        env={"PYTHONPATH": PYTHONPATH, "PATH": "/usr/bin:/bin"},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_missing_or_unpaired_file_stops_the_docreader(certs: CertFiles, tmp_path: Path) -> None:
    missing = start(["--tls-cert", str(tmp_path / "nope.pem"), "--tls-key", str(certs.server_key)])
    assert missing.returncode == 2
    assert f"cannot read {tmp_path / 'nope.pem'}: No such file or directory" in missing.stderr
    unpaired = start(["--tls-cert", str(certs.server_cert)])
    assert unpaired.returncode == 2
    assert "--tls-cert and --tls-key must be given together" in unpaired.stderr
    other_key = start(["--tls-cert", str(certs.server_cert), "--tls-key", str(certs.client_key)])
    assert other_key.returncode == 2
    assert (
        f"{certs.client_key} is not the private key of the certificate in {certs.server_cert}"
        in other_key.stderr
    )


def _lite_api(cert: Path, key: Path, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.main", "--mode", "lite"],
        env={
            "PYTHONPATH": PYTHONPATH,
            "PATH": "/usr/bin:/bin",
            "SLUICE_DATA_DIR": str(data_dir),
            "SLUICE_API_TLS_CERT": str(cert),
            "SLUICE_API_TLS_KEY": str(key),
        },
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_wrong_api_tls_file_stops_the_api(certs: CertFiles, tmp_path: Path) -> None:
    not_pem = tmp_path / "key.txt"
    not_pem.write_text("not a key")
    done = _lite_api(certs.server_cert, not_pem, tmp_path / "data")
    assert done.returncode == 2
    assert f"SLUICE_API_TLS_KEY: {not_pem} is not a PEM file" in done.stderr
    assert not (tmp_path / "data").exists()


def test_a_key_of_another_certificate_stops_the_api_saying_so(
    certs: CertFiles, tmp_path: Path
) -> None:
    done = _lite_api(certs.server_cert, certs.client_key, tmp_path / "data")
    assert done.returncode == 2
    assert (
        f"SLUICE_API_TLS_KEY: {certs.client_key} is not the private key of the certificate "
        f"in {certs.server_cert}" in done.stderr
    )
    assert "address is already in use" not in done.stderr
    assert not (tmp_path / "data").exists()
