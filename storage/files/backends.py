"""Storage backend instances from configuration, and the FileService built from them.

The configuration is a JSON object of named instances (``SLUICE_STORAGE_BACKENDS``):

    {"disk":    {"provider": "local", "dir": "/var/lib/sluice/files"},
     "s3-main": {"provider": "s3", "preset": "minio", "endpoint": "http://minio:9000",
                 "bucket": "sluice", "access_key": "...", "secret_key": "...",
                 "temp_bucket": "sluice-tmp"},
     "null":    {"provider": "dummy"}}

Providers: ``local``, ``dummy`` and ``s3``, whose ``preset`` (s3, minio, cos, oss, tos, obs,
ks3; see s3_presets) fills in the endpoint from the region; a preset's name also works as
the provider (``{"provider": "cos", …}``). Unknown keys are refused, so a misspelt option
fails at start instead of being ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import SluiceError
from storage.files.backend_scoped import (
    BACKEND_ID_PATTERN,
    BackendScopedFileService,
    ScopedBackend,
)
from storage.files.dummy import DummyFileService
from storage.files.local import LocalFileService
from storage.files.s3_config import (
    DEFAULT_MAX_PARALLEL_PARTS,
    DEFAULT_PART_SIZE,
    MAX_URL_EXPIRY_S,
    S3Config,
)
from storage.files.s3_presets import PRESETS, resolve_endpoint

DEFAULT_LOCAL_BACKEND_ID = "local"


class BackendConfigError(SluiceError, ValueError):
    """The storage backend configuration cannot be used."""


@dataclass(frozen=True)
class LocalBackendSpec:
    dir: Path
    public_base_url: str = ""


@dataclass(frozen=True)
class S3BackendSpec:
    preset: str
    config: S3Config


@dataclass(frozen=True)
class DummyBackendSpec:
    pass


BackendSpec = LocalBackendSpec | S3BackendSpec | DummyBackendSpec

_LOCAL_KEYS = frozenset({"provider", "dir", "public_base_url"})
_S3_STRINGS = frozenset(
    {
        "preset",
        "endpoint",
        "region",
        "bucket",
        "temp_bucket",
        "access_key",
        "secret_key",
        "addressing_style",
        "public_base_url",
    }
)
_S3_NUMBERS = frozenset({"part_size_mb", "max_parallel_parts", "url_expiry_s"})


def parse_backends_json(text: str) -> dict[str, BackendSpec]:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BackendConfigError(f"not valid JSON: {exc}") from exc
    if not isinstance(raw, dict) or not raw:
        raise BackendConfigError("must be a non-empty JSON object of named backends")
    return {backend_id: parse_backend(backend_id, spec) for backend_id, spec in raw.items()}


def parse_backend(backend_id: str, raw: Any) -> BackendSpec:
    if not BACKEND_ID_PATTERN.fullmatch(backend_id):
        raise BackendConfigError(
            f"backend id {backend_id!r} must be 1-64 letters, digits, '-' or '_'"
        )
    if not isinstance(raw, dict):
        raise BackendConfigError(f"{backend_id}: must be a JSON object")
    provider = raw.get("provider")
    try:
        if provider == "local":
            _only(raw, _LOCAL_KEYS)
            if not _string(raw, "dir"):
                raise ValueError("a local backend needs a dir")
            return LocalBackendSpec(Path(_string(raw, "dir")), _string(raw, "public_base_url"))
        if provider == "dummy":
            _only(raw, frozenset({"provider"}))
            return DummyBackendSpec()
        if provider == "s3" or provider in PRESETS:
            return _s3_spec(raw, preset=_string(raw, "preset") or str(provider))
    except ValueError as exc:
        raise BackendConfigError(f"{backend_id}: {exc}") from exc
    known = ", ".join(["local", "s3", "dummy", *PRESETS])
    raise BackendConfigError(f"{backend_id}: provider must be one of {known}, not {provider!r}")


def build_backend(spec: BackendSpec) -> ScopedBackend:
    if isinstance(spec, LocalBackendSpec):
        return LocalFileService(spec.dir, public_base_url=spec.public_base_url or None)
    if isinstance(spec, S3BackendSpec):
        # Imported here: boto3 takes a while to load, and only S3 deployments need it.
        from storage.files.s3 import S3FileService

        return S3FileService(spec.config)
    return DummyFileService()


def build_file_service(
    specs: Mapping[str, BackendSpec], default_id: str
) -> BackendScopedFileService:
    return BackendScopedFileService(
        {backend_id: build_backend(spec) for backend_id, spec in specs.items()}, default_id
    )


def _s3_spec(raw: dict[str, Any], *, preset: str) -> S3BackendSpec:
    _only(raw, _S3_STRINGS | _S3_NUMBERS | {"provider"})
    endpoint = resolve_endpoint(
        preset,
        region=_string(raw, "region"),
        endpoint=_string(raw, "endpoint"),
        addressing_style=_string(raw, "addressing_style"),
    )
    config = S3Config(
        bucket=_string(raw, "bucket"),
        region=endpoint.region,
        endpoint=endpoint.endpoint,
        addressing_style=endpoint.addressing_style,
        access_key=_string(raw, "access_key"),
        secret_key=_string(raw, "secret_key"),
        temp_bucket=_string(raw, "temp_bucket"),
        part_size=_number(raw, "part_size_mb", DEFAULT_PART_SIZE >> 20) << 20,
        max_parallel_parts=_number(raw, "max_parallel_parts", DEFAULT_MAX_PARALLEL_PARTS),
        url_expiry_s=_number(raw, "url_expiry_s", MAX_URL_EXPIRY_S),
        public_base_url=_string(raw, "public_base_url"),
    )
    return S3BackendSpec(preset, config)


def _only(raw: dict[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(raw.keys() - allowed)
    if unknown:
        raise ValueError(f"unknown keys {unknown}; allowed: {sorted(allowed)}")


def _string(raw: dict[str, Any], key: str) -> str:
    value = raw.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def _number(raw: dict[str, Any], key: str, default: int) -> int:
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key} must be an integer")
    return value
