"""The root options of `sluice`: how its help shows flags, and the TLS files' usage errors
(the TLS connections themselves: tests/e2e/tls/test_api_tls.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sluice_client.cli import main

from tests.support.certificates import make_certificates


@pytest.mark.parametrize("command", [[], ["ingest"], ["kb", "create"], ["watch"]])
def test_help_shows_flags_without_a_value_type(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, "-h"]) == 0
    out = capsys.readouterr().out
    assert "--json" in out and "--help" in out
    assert "<bool>" not in out
    # Options that take a value keep their type.
    if not command:
        assert "<str>" in out and "PEM" in out


def _one_usage_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    return err


def test_a_certificate_without_its_key_or_a_key_without_its_certificate_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    certs = make_certificates(tmp_path)

    assert main(["--cert-file", str(certs.client_cert), "kb", "list"]) == 2
    assert _one_usage_error(capsys).startswith("error: --cert-file needs --key-file")

    assert main(["--key-file", str(certs.client_key), "kb", "list"]) == 2
    assert _one_usage_error(capsys).startswith("error: --key-file needs --cert-file")


def test_a_missing_a_directory_or_a_non_pem_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--ca-file", str(tmp_path / "missing.pem"), "kb", "list"]) == 2
    assert "does not exist" in _one_usage_error(capsys)

    assert main(["--ca-file", str(tmp_path), "kb", "list"]) == 2
    assert "is a directory" in _one_usage_error(capsys)

    not_pem = tmp_path / "ca.der"
    not_pem.write_bytes(b"\x30\x82\x01\x0a")
    assert main(["--ca-file", str(not_pem), "kb", "list"]) == 2
    assert _one_usage_error(capsys) == (
        f"error: --ca-file {not_pem}: not a PEM file (see 'sluice -h')\n"
    )


def test_the_tls_files_come_from_the_environment_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLUICE_CERT_FILE", str(tmp_path / "client.pem"))

    assert main(["kb", "list"]) == 2
    err = _one_usage_error(capsys)
    assert "'--cert-file' (env var: 'SLUICE_CERT_FILE')" in err and "does not exist" in err
