"""Process configuration, read once from SLUICE_* environment variables.

Lite mode needs no variable at all: everything lives under ``data_dir``. Full mode
needs the database, Redis and Milvus URIs; the same settings object configures the
API, the docreader and the workers so that they agree on prefixes and limits.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from storage.files.backends import (
    DEFAULT_LOCAL_BACKEND_ID,
    BackendConfigError,
    BackendSpec,
    LocalBackendSpec,
    parse_backends_json,
)
from workers.net.ssrf import UrlPolicy

Mode = Literal["lite", "full"]


class SettingsError(ValueError):
    """A SLUICE_* variable has a value that cannot be used."""


@dataclass(frozen=True)
class Settings:
    mode: Mode = "lite"
    data_dir: Path = Path("data")
    api_address: str = "127.0.0.1:50051"
    database_url: str = ""
    redis_url: str = "redis://127.0.0.1:6379/0"
    key_prefix: str = "sluice"
    milvus_uri: str = ""
    storage_dir: Path = Path()
    # Named storage backend instances (SLUICE_STORAGE_BACKENDS, JSON; see
    # storage.files.backends) and the one files go to unless a knowledge base is bound to
    # another. Empty: one local backend "local" at storage_dir (see file_backends).
    storage_backends: Mapping[str, BackendSpec] = field(default_factory=dict)
    storage_default_backend: str = ""
    # How often the API re-checks each backend's connectivity for its health service.
    storage_health_interval_s: float = 30.0
    # Empty in lite mode: the docreader is started in-process on a unix socket.
    docreader_address: str = ""
    max_upload_bytes: int = 1 << 30
    max_message_bytes: int = 64 << 20
    document_process_timeout_s: int = 7200
    docreader_call_timeout_s: int = 1800
    # Lite mode's in-process docreader: each parse's child process is capped at this much
    # address space and this many seconds (full mode: the docreader's own flags).
    docreader_memory_cap_mb: int = 2048
    docreader_parse_timeout_s: int = 1800
    # ...and refuses an upload over this many MiB (0 = no cap of its own; full mode: its flag).
    docreader_max_input_mb: int = 2048
    document_process_retries: int = 3
    # Seconds before retry k of document:process (the last one repeats): spread out so a
    # short database or docreader outage does not burn every attempt at once.
    document_process_retry_delays_s: tuple[int, ...] = (10, 30, 60)
    auth_required: bool = False
    default_tenant_id: str = "00000000-0000-0000-0000-000000000001"
    lite_default_workers: int = 2
    embed_batch_size: int = 32
    # onnxruntime threads of the local embedding model in each process; 0 = one per core.
    # Worker processes sharing a machine should split its cores between them: each one
    # running a thread per core oversubscribes the CPU and slows them all down.
    embed_threads: int = 0
    watch_poll_interval_s: float = 2.0
    # Housekeeping (spec: «Самовосстановление Housekeeping»): the sweeps run every
    # housekeeping_interval_s; stale_after_s 0 means the spec's threshold (see stale_threshold_s).
    housekeeping_enabled: bool = True
    housekeeping_interval_s: float = 300.0
    stale_after_s: int = 0
    summary_stale_after_s: int = 3600
    stall_verdict_after_s: int = 1200
    max_auto_requeues: int = 2
    # On SIGTERM a worker hands its running round back to the queue and exits within this
    # many seconds (lite mode: the executor's shutdown waits as long).
    worker_shutdown_grace_s: float = 30.0
    # Outbound fetches (remote images, URL import) are SSRF-guarded; these exact host names
    # or IPs skip the address checks (an internal image server, say).
    ssrf_allow_hosts: frozenset[str] = frozenset()
    remote_image_max_bytes: int = 20 << 20
    fetch_timeout_s: float = 30.0
    # URL import: a file download is capped at url_download_max_bytes (default: the upload
    # cap), a web page at url_page_max_bytes; either fetch ends within url_import_timeout_s,
    # and each connection attempt within url_connect_timeout_s.
    url_download_max_bytes: int = 1 << 30
    url_page_max_bytes: int = 20 << 20
    url_import_timeout_s: float = 600.0
    url_connect_timeout_s: float = 10.0
    # Access grants to stored files (ResourceService): the lifetime of a grant that asks for
    # none, the longest one may ask for, and how long the records of a deleted knowledge's
    # files stay (a stale reference reads "deleted", not "unknown") before housekeeping
    # forgets them.
    grant_default_ttl_s: int = 900
    grant_max_ttl_s: int = 86400
    deleted_resource_retention_s: int = 7 * 86400
    extra: Mapping[str, str] = field(default_factory=dict)

    @property
    def url_policy(self) -> UrlPolicy:
        """The SSRF policy every outbound fetch is held to."""
        return UrlPolicy(allow_hosts=self.ssrf_allow_hosts)

    @property
    def file_backends(self) -> dict[str, BackendSpec]:
        return dict(self.storage_backends) or {
            DEFAULT_LOCAL_BACKEND_ID: LocalBackendSpec(self.storage_dir)
        }

    @property
    def file_default_backend(self) -> str:
        return self.storage_default_backend or next(iter(self.file_backends))

    @property
    def docreader_socket(self) -> Path:
        return self.data_dir / "docreader.sock"

    @property
    def stale_threshold_s(self) -> int:
        """How long an in-flight knowledge may go without progress before housekeeping
        recovers it: the spec's max(1 h, document process timeout) + 10 min, unless set."""
        if self.stale_after_s > 0:
            return self.stale_after_s
        return max(3600, self.document_process_timeout_s) + 600

    @classmethod
    def from_env(
        cls, overrides: Mapping[str, object] | None = None, *, env: Mapping[str, str] | None = None
    ) -> Settings:
        source = os.environ if env is None else env
        overrides = dict(overrides or {})
        # Explicit overrides (command-line flags) win over the environment.
        mode = _read_mode(str(overrides.pop("mode", None) or source.get("SLUICE_MODE", "lite")))
        data_dir = Path(
            str(overrides.pop("data_dir", None) or source.get("SLUICE_DATA_DIR", "data"))
        )
        base = cls(mode=mode, data_dir=data_dir)
        values: dict[str, object] = {
            "api_address": source.get("SLUICE_API_ADDRESS", base.api_address),
            "database_url": source.get(
                "SLUICE_DATABASE_URL", f"sqlite:///{(data_dir / 'sluice.db').resolve()}"
            ),
            "redis_url": source.get("SLUICE_REDIS_URL", base.redis_url),
            "key_prefix": source.get("SLUICE_KEY_PREFIX", base.key_prefix),
            "milvus_uri": source.get("SLUICE_MILVUS_URI", str((data_dir / "milvus.db").resolve())),
            "storage_dir": Path(source.get("SLUICE_STORAGE_DIR", str(data_dir / "files"))),
            "storage_backends": _storage_backends(source),
            "storage_default_backend": source.get("SLUICE_STORAGE_DEFAULT_BACKEND", ""),
            "storage_health_interval_s": _float(
                source, "SLUICE_STORAGE_HEALTH_INTERVAL", base.storage_health_interval_s
            ),
            "docreader_address": source.get("SLUICE_DOCREADER_ADDRESS", ""),
            "max_upload_bytes": _int(source, "SLUICE_MAX_UPLOAD_BYTES", base.max_upload_bytes),
            "max_message_bytes": _int(source, "SLUICE_MAX_MESSAGE_BYTES", base.max_message_bytes),
            "document_process_timeout_s": _int(
                source, "SLUICE_DOCUMENT_PROCESS_TIMEOUT", base.document_process_timeout_s
            ),
            "docreader_call_timeout_s": _int(
                source, "SLUICE_DOCREADER_CALL_TIMEOUT", base.docreader_call_timeout_s
            ),
            "docreader_memory_cap_mb": _int(
                source, "SLUICE_DOCREADER_MEMORY_CAP_MB", base.docreader_memory_cap_mb
            ),
            "docreader_parse_timeout_s": _int(
                source, "SLUICE_DOCREADER_PARSE_TIMEOUT", base.docreader_parse_timeout_s
            ),
            "docreader_max_input_mb": _int(
                source, "SLUICE_DOCREADER_MAX_INPUT_MB", base.docreader_max_input_mb
            ),
            "document_process_retries": _int(
                source, "SLUICE_DOCUMENT_PROCESS_RETRIES", base.document_process_retries
            ),
            "document_process_retry_delays_s": _int_tuple(
                source, "SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS", base.document_process_retry_delays_s
            ),
            "auth_required": _bool(source, "SLUICE_AUTH_REQUIRED", mode == "full"),
            "lite_default_workers": _int(source, "SLUICE_LITE_WORKERS", base.lite_default_workers),
            "embed_batch_size": _int(source, "SLUICE_EMBED_BATCH_SIZE", base.embed_batch_size),
            "embed_threads": _int(source, "SLUICE_EMBED_THREADS", base.embed_threads),
            "watch_poll_interval_s": float(
                source.get("SLUICE_WATCH_POLL_INTERVAL", base.watch_poll_interval_s)
            ),
            "housekeeping_enabled": _bool(
                source, "SLUICE_HOUSEKEEPING_ENABLED", base.housekeeping_enabled
            ),
            "housekeeping_interval_s": _float(
                source, "SLUICE_HOUSEKEEPING_INTERVAL", base.housekeeping_interval_s
            ),
            "stale_after_s": _int(source, "SLUICE_STALE_AFTER", base.stale_after_s),
            "summary_stale_after_s": _int(
                source, "SLUICE_SUMMARY_STALE_AFTER", base.summary_stale_after_s
            ),
            "stall_verdict_after_s": _int(
                source, "SLUICE_STALL_VERDICT_AFTER", base.stall_verdict_after_s
            ),
            "max_auto_requeues": _int(source, "SLUICE_MAX_AUTO_REQUEUES", base.max_auto_requeues),
            "worker_shutdown_grace_s": _float(
                source, "SLUICE_WORKER_SHUTDOWN_GRACE_S", base.worker_shutdown_grace_s
            ),
            "ssrf_allow_hosts": _str_set(source, "SLUICE_SSRF_ALLOW_HOSTS", base.ssrf_allow_hosts),
            "remote_image_max_bytes": _int(
                source, "SLUICE_REMOTE_IMAGE_MAX_BYTES", base.remote_image_max_bytes
            ),
            "fetch_timeout_s": _float(source, "SLUICE_FETCH_TIMEOUT_S", base.fetch_timeout_s),
            "url_download_max_bytes": _int(
                source,
                "SLUICE_URL_DOWNLOAD_MAX_BYTES",
                _int(source, "SLUICE_MAX_UPLOAD_BYTES", base.max_upload_bytes),
            ),
            "url_page_max_bytes": _int(
                source, "SLUICE_URL_PAGE_MAX_BYTES", base.url_page_max_bytes
            ),
            "url_import_timeout_s": _float(
                source, "SLUICE_URL_IMPORT_TIMEOUT_S", base.url_import_timeout_s
            ),
            "url_connect_timeout_s": _float(
                source, "SLUICE_URL_CONNECT_TIMEOUT_S", base.url_connect_timeout_s
            ),
            "grant_default_ttl_s": _int(
                source, "SLUICE_GRANT_DEFAULT_TTL", base.grant_default_ttl_s
            ),
            "grant_max_ttl_s": _int(source, "SLUICE_GRANT_MAX_TTL", base.grant_max_ttl_s),
            "deleted_resource_retention_s": _int(
                source, "SLUICE_DELETED_RESOURCE_RETENTION", base.deleted_resource_retention_s
            ),
        }
        values.update(overrides)
        settings = replace(base, **values)  # type: ignore[arg-type]
        if settings.embed_threads < 0:
            raise SettingsError(f"SLUICE_EMBED_THREADS must be >= 0, not {settings.embed_threads}")
        if settings.housekeeping_interval_s <= 0:
            raise SettingsError("SLUICE_HOUSEKEEPING_INTERVAL must be > 0")
        if settings.max_auto_requeues < 0:
            raise SettingsError("SLUICE_MAX_AUTO_REQUEUES must be >= 0")
        if settings.worker_shutdown_grace_s <= 0:
            raise SettingsError("SLUICE_WORKER_SHUTDOWN_GRACE_S must be > 0")
        if settings.remote_image_max_bytes <= 0:
            raise SettingsError("SLUICE_REMOTE_IMAGE_MAX_BYTES must be > 0")
        if settings.file_default_backend not in settings.file_backends:
            raise SettingsError(
                f"SLUICE_STORAGE_DEFAULT_BACKEND {settings.file_default_backend!r} is not one "
                f"of the configured backends: {', '.join(settings.file_backends)}"
            )
        if settings.storage_health_interval_s <= 0:
            raise SettingsError("SLUICE_STORAGE_HEALTH_INTERVAL must be > 0")
        if settings.fetch_timeout_s <= 0:
            raise SettingsError("SLUICE_FETCH_TIMEOUT_S must be > 0")
        for name, value in (
            ("SLUICE_URL_DOWNLOAD_MAX_BYTES", settings.url_download_max_bytes),
            ("SLUICE_URL_PAGE_MAX_BYTES", settings.url_page_max_bytes),
            ("SLUICE_URL_IMPORT_TIMEOUT_S", settings.url_import_timeout_s),
            ("SLUICE_URL_CONNECT_TIMEOUT_S", settings.url_connect_timeout_s),
        ):
            if value <= 0:
                raise SettingsError(f"{name} must be > 0")
        if not 0 < settings.grant_default_ttl_s <= settings.grant_max_ttl_s:
            raise SettingsError(
                "SLUICE_GRANT_DEFAULT_TTL must be > 0 and at most SLUICE_GRANT_MAX_TTL"
            )
        # Sweep C hands a deletion stuck past the stale threshold back, files and all: its
        # tombstones must outlive that, or sweep D would delete the files first.
        if settings.deleted_resource_retention_s < settings.stale_threshold_s:
            raise SettingsError(
                "SLUICE_DELETED_RESOURCE_RETENTION must be at least the stale threshold "
                f"({settings.stale_threshold_s} s, see SLUICE_STALE_AFTER), not "
                f"{settings.deleted_resource_retention_s}"
            )
        try:
            UrlPolicy(allow_hosts=settings.ssrf_allow_hosts)
        except ValueError as exc:
            raise SettingsError(f"SLUICE_SSRF_ALLOW_HOSTS: {exc}") from exc
        if settings.mode == "full" and not settings.docreader_address:
            raise SettingsError("SLUICE_DOCREADER_ADDRESS is required in full mode")
        return settings


def _storage_backends(source: Mapping[str, str]) -> dict[str, BackendSpec]:
    raw = source.get("SLUICE_STORAGE_BACKENDS", "").strip()
    if not raw:
        return {}
    try:
        return parse_backends_json(raw)
    except BackendConfigError as exc:
        raise SettingsError(f"SLUICE_STORAGE_BACKENDS: {exc}") from exc


def _read_mode(value: str) -> Mode:
    if value == "lite":
        return "lite"
    if value == "full":
        return "full"
    raise SettingsError(f"SLUICE_MODE must be 'lite' or 'full', not {value!r}")


def _int(source: Mapping[str, str], name: str, default: int) -> int:
    raw = source.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise SettingsError(f"{name} must be an integer, not {raw!r}") from exc


def _int_tuple(source: Mapping[str, str], name: str, default: tuple[int, ...]) -> tuple[int, ...]:
    """Comma-separated non-negative integers, e.g. ``10,30,60``."""
    raw = source.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        values = tuple(int(part) for part in raw.split(","))
    except ValueError as exc:
        raise SettingsError(f"{name} must be comma-separated integers, not {raw!r}") from exc
    if any(value < 0 for value in values):
        raise SettingsError(f"{name} must not contain negative values, not {raw!r}")
    return values


def _str_set(source: Mapping[str, str], name: str, default: frozenset[str]) -> frozenset[str]:
    """Comma-separated values, e.g. ``images.internal,10.0.0.7``; blanks are ignored."""
    raw = source.get(name)
    if raw is None or raw.strip() == "":
        return default
    return frozenset(part.strip() for part in raw.split(",") if part.strip())


def _float(source: Mapping[str, str], name: str, default: float) -> float:
    raw = source.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise SettingsError(f"{name} must be a number, not {raw!r}") from exc


def _bool(source: Mapping[str, str], name: str, default: bool) -> bool:
    raw = source.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}
