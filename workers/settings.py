"""Process configuration, read once from SLUICE_* environment variables.

Lite mode needs no variable at all: everything lives under ``data_dir``. Full mode
needs the database, Redis and Milvus URIs; the same settings object configures the
API, the docreader and the workers so that they agree on prefixes and limits.

The model is pydantic-settings': every value is parsed strictly and range-checked, and
``from_env`` turns a bad one into a SettingsError of one line naming the variable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from core.errors import SluiceError
from storage.files.backends import (
    DEFAULT_LOCAL_BACKEND_ID,
    BackendSpec,
    LocalBackendSpec,
)
from workers.net.service_ports import runtime_service_ports
from workers.net.ssrf import DEFAULT_BLOCKED_PORTS, UrlPolicy
from workers.settings_env import (
    describe,
    read_environment,
    variable_of,
    warn_about_unknown_variables,
)
from workers.settings_types import (
    Address,
    BackendSpecs,
    Flag,
    NonNegativeInts,
    OptionalAddress,
    StringSet,
)

Mode = Literal["lite", "full"]
# Fixed by the code that uses them, not by the environment.
_NOT_FROM_ENVIRONMENT = frozenset({"default_tenant_id", "extra"})


class SettingsError(SluiceError, ValueError):
    """A SLUICE_* variable has a value that cannot be used."""


class Settings(BaseSettings):
    """Every field is read from SLUICE_<FIELD NAME> unless its ``validation_alias`` names
    another variable; ``Settings(...)`` itself takes the values given and nothing else."""

    model_config = SettingsConfigDict(
        env_prefix="SLUICE_",
        env_ignore_empty=True,
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        allow_inf_nan=False,
    )

    mode: Mode = "lite"
    data_dir: Path = Path("data")
    api_address: Address = "127.0.0.1:50051"
    database_url: str = ""
    redis_url: str = Field(default="redis://127.0.0.1:6379/0", min_length=1)
    key_prefix: str = Field(default="sluice", min_length=1)
    milvus_uri: str = ""
    storage_dir: Path = Path()
    # Named storage backend instances (SLUICE_STORAGE_BACKENDS, JSON; see
    # storage.files.backends) and the one files go to unless a knowledge base is bound to
    # another. Empty: one local backend "local" at storage_dir (see file_backends).
    storage_backends: BackendSpecs = Field(default_factory=dict)
    storage_default_backend: str = ""
    # How often the API re-checks each backend's connectivity for its health service.
    storage_health_interval_s: float = Field(
        default=30.0, gt=0, validation_alias="SLUICE_STORAGE_HEALTH_INTERVAL"
    )
    # Empty in lite mode: the docreader is started in-process on a unix socket.
    docreader_address: OptionalAddress = ""
    max_upload_bytes: int = Field(default=1 << 30, gt=0)
    max_message_bytes: int = Field(default=64 << 20, gt=0)
    document_process_timeout_s: int = Field(
        default=7200, gt=0, validation_alias="SLUICE_DOCUMENT_PROCESS_TIMEOUT"
    )
    docreader_call_timeout_s: int = Field(
        default=1800, gt=0, validation_alias="SLUICE_DOCREADER_CALL_TIMEOUT"
    )
    # Lite mode's in-process docreader: each parse's child process is capped at this much
    # address space (0 = no cap) and this many seconds (full mode: the docreader's own flags).
    docreader_memory_cap_mb: int = Field(default=2048, ge=0)
    docreader_parse_timeout_s: int = Field(
        default=1800, gt=0, validation_alias="SLUICE_DOCREADER_PARSE_TIMEOUT"
    )
    # ...and refuses an upload over this many MiB (0 = no cap of its own; full mode: its flag).
    docreader_max_input_mb: int = Field(default=2048, ge=0)
    document_process_retries: int = Field(default=3, ge=0)
    # Seconds before retry k of document:process (the last one repeats): spread out so a
    # short database or docreader outage does not burn every attempt at once.
    document_process_retry_delays_s: NonNegativeInts = Field(
        default=(10, 30, 60), min_length=1, validation_alias="SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS"
    )
    # from_env: on by default in full mode.
    auth_required: Flag = False
    default_tenant_id: str = "00000000-0000-0000-0000-000000000001"
    lite_default_workers: int = Field(default=2, ge=1, validation_alias="SLUICE_LITE_WORKERS")
    embed_batch_size: int = Field(default=32, ge=1)
    # onnxruntime threads of the local embedding model in each process; 0 = one per core.
    # Worker processes sharing a machine should split its cores between them: each one
    # running a thread per core oversubscribes the CPU and slows them all down.
    embed_threads: int = Field(default=0, ge=0)
    watch_poll_interval_s: float = Field(
        default=2.0, gt=0, validation_alias="SLUICE_WATCH_POLL_INTERVAL"
    )
    # Housekeeping (spec: «Самовосстановление Housekeeping»): the sweeps run every
    # housekeeping_interval_s; stale_after_s 0 means the spec's threshold (see stale_threshold_s).
    housekeeping_enabled: Flag = True
    housekeeping_interval_s: float = Field(
        default=300.0, gt=0, validation_alias="SLUICE_HOUSEKEEPING_INTERVAL"
    )
    stale_after_s: int = Field(default=0, ge=0, validation_alias="SLUICE_STALE_AFTER")
    summary_stale_after_s: int = Field(
        default=3600, gt=0, validation_alias="SLUICE_SUMMARY_STALE_AFTER"
    )
    stall_verdict_after_s: int = Field(
        default=1200, gt=0, validation_alias="SLUICE_STALL_VERDICT_AFTER"
    )
    max_auto_requeues: int = Field(default=2, ge=0)
    # On SIGTERM a worker hands its running round back to the queue and exits within this
    # many seconds (lite mode: the executor's shutdown waits as long).
    worker_shutdown_grace_s: float = Field(default=30.0, gt=0)
    # Outbound requests (remote images, URL import, model endpoints) are SSRF-guarded; these
    # entries, "host" or "host:port" ("[v6]:port"), skip the address checks (an internal
    # image server, say); a blocked port opens only to an entry naming it.
    ssrf_allow_hosts: StringSet = frozenset()
    remote_image_max_bytes: int = Field(default=20 << 20, gt=0)
    fetch_timeout_s: float = Field(default=30.0, gt=0)
    # URL import: a file download is capped at url_download_max_bytes (from_env's default:
    # the upload cap), a web page at url_page_max_bytes; either fetch ends within
    # url_import_timeout_s, and each connection attempt within url_connect_timeout_s.
    url_download_max_bytes: int = Field(default=1 << 30, gt=0)
    url_page_max_bytes: int = Field(default=20 << 20, gt=0)
    url_import_timeout_s: float = Field(default=600.0, gt=0)
    url_connect_timeout_s: float = Field(default=10.0, gt=0)
    # Access grants to stored files (ResourceService): the lifetime of a grant that asks for
    # none, the longest one may ask for, and how long the records of a deleted knowledge's
    # files stay (a stale reference reads "deleted", not "unknown") before housekeeping
    # forgets them.
    grant_default_ttl_s: int = Field(default=900, validation_alias="SLUICE_GRANT_DEFAULT_TTL")
    grant_max_ttl_s: int = Field(default=86400, gt=0, validation_alias="SLUICE_GRANT_MAX_TTL")
    deleted_resource_retention_s: int = Field(
        default=7 * 86400, validation_alias="SLUICE_DELETED_RESOURCE_RETENTION"
    )
    extra: Mapping[str, str] = Field(default_factory=dict)

    @property
    def url_policy(self) -> UrlPolicy:
        """The SSRF policy every outbound request is held to: our own services' ports are
        blocked with the well-known ones."""
        return UrlPolicy(
            allow_hosts=self.ssrf_allow_hosts,
            blocked_ports=DEFAULT_BLOCKED_PORTS | self.service_ports | runtime_service_ports(),
        )

    @property
    def service_ports(self) -> frozenset[int]:
        """The ports the configuration says Sluice's own services listen on: the API, the
        docreader, Redis, the database and Milvus (a milvus-lite file's port shows only at
        run time: workers.net.service_ports)."""
        ports = {
            _address_port(self.api_address),
            _address_port(self.docreader_address),
            _url_port(self.redis_url, 6379),
            _url_port(self.milvus_uri, 19530),
            _url_port(self.database_url, 5432),
        }
        return frozenset(port for port in ports if port is not None)

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

    @model_validator(mode="after")
    def _check_across_settings(self) -> Settings:
        if self.file_default_backend not in self.file_backends:
            raise ValueError(
                f"SLUICE_STORAGE_DEFAULT_BACKEND {self.file_default_backend!r} is not one "
                f"of the configured backends: {', '.join(self.file_backends)}"
            )
        if not 0 < self.grant_default_ttl_s <= self.grant_max_ttl_s:
            raise ValueError(
                "SLUICE_GRANT_DEFAULT_TTL must be > 0 and at most SLUICE_GRANT_MAX_TTL"
            )
        # Sweep C hands a deletion stuck past the stale threshold back, files and all: its
        # tombstones must outlive that, or sweep D would delete the files first.
        if self.deleted_resource_retention_s < self.stale_threshold_s:
            raise ValueError(
                "SLUICE_DELETED_RESOURCE_RETENTION must be at least the stale threshold "
                f"({self.stale_threshold_s} s, see SLUICE_STALE_AFTER), not "
                f"{self.deleted_resource_retention_s}"
            )
        try:
            UrlPolicy(allow_hosts=self.ssrf_allow_hosts)
        except ValueError as exc:
            raise ValueError(f"SLUICE_SSRF_ALLOW_HOSTS: {exc}") from exc
        if self.mode == "full" and not self.docreader_address:
            raise ValueError("SLUICE_DOCREADER_ADDRESS is required in full mode")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The environment is read by from_env alone, which also fills the defaults that
        # depend on the mode and the data directory.
        return (init_settings,)

    @classmethod
    def environment_variables(cls) -> frozenset[str]:
        """Every SLUICE_* variable a setting is read from."""
        return frozenset(
            variable_of(cls, name) for name in cls.model_fields if name not in _NOT_FROM_ENVIRONMENT
        )

    @classmethod
    def from_env(
        cls, overrides: Mapping[str, object] | None = None, *, env: Mapping[str, str] | None = None
    ) -> Settings:
        """The settings of ``env`` (default: the process environment), with ``overrides``
        (command-line flags, by field name) winning over it. A bad value raises
        SettingsError with one line naming the variable."""
        source = os.environ if env is None else env
        flags = {name: value for name, value in (overrides or {}).items() if value is not None}
        warn_about_unknown_variables(source, cls.environment_variables())
        fields = [name for name in cls.model_fields if name not in _NOT_FROM_ENVIRONMENT]
        values = {**read_environment(cls, source, fields), **flags}
        try:
            return cls(**{**_derived_defaults(values), **values})
        except ValidationError as exc:
            raise SettingsError(describe(exc, cls, flags.keys())) from None


def _address_port(address: str) -> int | None:
    """The port of a "host:port" listening address (None for a unix socket or none)."""
    _, colon, port = address.rpartition(":")
    return int(port) if colon and port.isdigit() else None


def _url_port(url: str, default: int) -> int | None:
    """The port a network URL names, else its scheme's ``default``; None for a file (a
    SQLite database, a milvus-lite path) or what is not a URL."""
    parts = urlsplit(url)
    if not parts.netloc or parts.scheme.startswith(("sqlite", "unix")):
        return None
    try:
        return parts.port or default
    except ValueError:
        return None


def _derived_defaults(values: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults that follow other settings: lite mode keeps everything under the data
    directory, full mode turns authentication on, and a URL download may be as large as an
    upload."""
    data_dir = Path(str(values.get("data_dir", "data")))
    derived: dict[str, Any] = {
        "database_url": f"sqlite:///{(data_dir / 'sluice.db').resolve()}",
        "milvus_uri": str((data_dir / "milvus.db").resolve()),
        "storage_dir": data_dir / "files",
        "auth_required": values.get("mode") == "full",
    }
    upload_cap = values.get("max_upload_bytes")
    if upload_cap is not None and str(upload_cap).strip().isdigit():
        derived["url_download_max_bytes"] = upload_cap
    return derived


def settings_or_exit(program: str, overrides: Mapping[str, object] | None = None) -> Settings:
    """from_env for a process entry point: a bad value ends the process with exit status 2
    and one line on stderr naming the variable, before anything has started."""
    try:
        return Settings.from_env(overrides)
    except SettingsError as exc:
        print(f"{program}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
