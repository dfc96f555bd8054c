"""The TLS settings group: the API's server certificate (with optional client
certificates) and how a worker reaches a docreader that serves TLS.

Each file is read when the settings are (workers.settings_types.PemFile), so a wrong path
stops the process before it listens, with one line naming the variable. Lite mode's
in-process docreader is left out: it listens on a unix socket in the data directory (or on
127.0.0.1 when that path is too long), reached only by its own process.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import model_validator

from core.tls import ClientTls, ServerTls, TlsFileError, check_key_pair
from workers.settings_groups import SettingsGroup
from workers.settings_types import PemFile


class TlsSettings(SettingsGroup):
    """Unset: plaintext. The API serves TLS with api_tls_cert + api_tls_key and then, with
    api_tls_client_ca, requires client certificates signed by it. A full-mode worker dials
    the docreader with TLS when docreader_tls_ca is set (its client certificate and key too
    when the docreader requires them)."""

    api_tls_cert: PemFile = None
    api_tls_key: PemFile = None
    api_tls_client_ca: PemFile = None
    docreader_tls_ca: PemFile = None
    docreader_tls_client_cert: PemFile = None
    docreader_tls_client_key: PemFile = None

    @property
    def api_server_tls(self) -> ServerTls | None:
        if self.api_tls_cert is None or self.api_tls_key is None:
            return None
        return ServerTls.from_files(self.api_tls_cert, self.api_tls_key, self.api_tls_client_ca)

    @property
    def docreader_client_tls(self) -> ClientTls | None:
        if self.docreader_tls_ca is None:
            return None
        return ClientTls.from_files(
            self.docreader_tls_ca, self.docreader_tls_client_cert, self.docreader_tls_client_key
        )

    @model_validator(mode="after")
    def _check_pairs(self) -> TlsSettings:
        _pair("SLUICE_API_TLS_CERT", self.api_tls_cert, "SLUICE_API_TLS_KEY", self.api_tls_key)
        if self.api_tls_client_ca is not None and self.api_tls_cert is None:
            raise ValueError("SLUICE_API_TLS_CLIENT_CA needs SLUICE_API_TLS_CERT and _KEY")
        _pair(
            "SLUICE_DOCREADER_TLS_CLIENT_CERT",
            self.docreader_tls_client_cert,
            "SLUICE_DOCREADER_TLS_CLIENT_KEY",
            self.docreader_tls_client_key,
        )
        if self.docreader_tls_client_cert is not None and self.docreader_tls_ca is None:
            raise ValueError("SLUICE_DOCREADER_TLS_CLIENT_CERT needs SLUICE_DOCREADER_TLS_CA")
        return self


def _pair(name: str, value: Path | None, other_name: str, other: Path | None) -> None:
    if (value is None) != (other is None):
        raise ValueError(f"{name} and {other_name} must be set together")
    if value is not None and other is not None:
        try:
            check_key_pair(value, other)
        except TlsFileError as exc:
            raise ValueError(f"{other_name}: {exc}") from None
