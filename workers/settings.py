"""Process configuration, read once from SLUICE_* environment variables.

Lite mode needs no variable at all: everything lives under ``data_dir``. Full mode
needs the database, Redis and Milvus URIs; the same settings object configures the
API, the docreader and the workers so that they agree on prefixes and limits. The
settings are grouped by concern (``settings.storage.database_url``,
``settings.queue.redis_url``...); each process's composition root hands a part the group
it reads.

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

from pydantic import BaseModel, Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from core.errors import SluiceError
from core.ssrf.url_policy import DEFAULT_BLOCKED_PORTS, UrlPolicy
from workers.net.service_ports import runtime_service_ports
from workers.observability.metrics_settings import MetricsSettings
from workers.settings_env import (
    describe,
    read_environment,
    unknown_variables,
    variable_of,
)
from workers.settings_groups import (
    ApiSettings,
    DocreaderSettings,
    HousekeepingSettings,
    ModelSettings,
    OutboundSettings,
    QueueSettings,
    SettingsGroup,
    StorageSettings,
)
from workers.settings_telemetry import TelemetrySettings
from workers.settings_tls import TlsSettings

Mode = Literal["lite", "full"]
# The groups, by the name Settings holds each under (in the order errors are reported).
GROUPS: dict[str, type[SettingsGroup]] = {
    "api": ApiSettings,
    "storage": StorageSettings,
    "queue": QueueSettings,
    "docreader": DocreaderSettings,
    "housekeeping": HousekeepingSettings,
    "models": ModelSettings,
    "outbound": OutboundSettings,
    "tls": TlsSettings,
    "metrics": MetricsSettings,
    "telemetry": TelemetrySettings,
}
# Read from the environment at the top level, beside the groups.
_PROCESS_FIELDS = ("mode", "data_dir")


class SettingsError(SluiceError, ValueError):
    """A SLUICE_* variable has a value that cannot be used."""


class Settings(BaseSettings):
    """The process-wide mode and data directory, and one group per concern (see
    workers.settings_groups); ``Settings(...)`` itself takes the values given and nothing
    else."""

    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        allow_inf_nan=False,
    )

    mode: Mode = "lite"
    data_dir: Path = Path("data")
    # Fixed by the code, not by the environment: the tenant of lite mode and of keyless calls.
    default_tenant_id: str = "00000000-0000-0000-0000-000000000001"
    api: ApiSettings = Field(default_factory=ApiSettings)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    queue: QueueSettings = Field(default_factory=QueueSettings)
    docreader: DocreaderSettings = Field(default_factory=DocreaderSettings)
    housekeeping: HousekeepingSettings = Field(default_factory=HousekeepingSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    outbound: OutboundSettings = Field(default_factory=OutboundSettings)
    tls: TlsSettings = Field(default_factory=TlsSettings)
    metrics: MetricsSettings = Field(default_factory=MetricsSettings)
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)

    @property
    def url_policy(self) -> UrlPolicy:
        """The SSRF policy every outbound request is held to: our own services' ports are
        blocked with the well-known ones."""
        return UrlPolicy(
            allow_hosts=self.outbound.ssrf_allow_hosts,
            blocked_ports=DEFAULT_BLOCKED_PORTS | self.service_ports | runtime_service_ports(),
        )

    @property
    def service_ports(self) -> frozenset[int]:
        """The ports the configuration says Sluice's own services listen on: the API, the
        docreader, Redis, the database and Milvus (a milvus-lite file's port shows only at
        run time: workers.net.service_ports)."""
        ports = {
            _address_port(self.api.api_address),
            _address_port(self.docreader.docreader_address),
            _url_port(self.queue.redis_url, 6379),
            _url_port(self.storage.milvus_uri, 19530),
            _url_port(self.storage.database_url, 5432),
        }
        return frozenset(port for port in ports if port is not None)

    @property
    def docreader_socket(self) -> Path:
        return self.data_dir / "docreader.sock"

    @property
    def stale_threshold_s(self) -> int:
        """How long an in-flight knowledge may go without progress before housekeeping
        recovers it: the spec's max(1 h, document process timeout) + 10 min, unless set."""
        if self.housekeeping.stale_after_s > 0:
            return self.housekeeping.stale_after_s
        return max(3600, self.queue.document_process_timeout_s) + 600

    @model_validator(mode="after")
    def _check_across_groups(self) -> Settings:
        # Sweep C hands a deletion stuck past the stale threshold back, files and all: its
        # tombstones must outlive that, or sweep D would delete the files first.
        retention_s = self.housekeeping.deleted_resource_retention_s
        if retention_s < self.stale_threshold_s:
            raise ValueError(
                "SLUICE_DELETED_RESOURCE_RETENTION must be at least the stale threshold "
                f"({self.stale_threshold_s} s, see SLUICE_STALE_AFTER), not {retention_s}"
            )
        if self.mode == "full":
            # Full mode's processes share these; a default under one process's data
            # directory would give each its own database and index.
            for variable, value in (
                ("SLUICE_DOCREADER_ADDRESS", self.docreader.docreader_address),
                ("SLUICE_DATABASE_URL", self.storage.database_url),
                ("SLUICE_MILVUS_URI", self.storage.milvus_uri),
            ):
                if not value:
                    raise ValueError(f"{variable} is required in full mode")
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
            variable_of(model, name) for model, names in _fields_by_model() for name in names
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
        unknown = unknown_variables(source, cls.environment_variables())
        if unknown:
            raise SettingsError(unknown)
        values: dict[str, Any] = {**read_environment(cls, source, _PROCESS_FIELDS)}
        values.update({name: flags[name] for name in _PROCESS_FIELDS if name in flags})
        groups: dict[str, dict[str, Any]] = {}
        for group, model in GROUPS.items():
            read = read_environment(model, source, tuple(model.model_fields))
            groups[group] = {
                **read,
                **{name: flags[name] for name in model.model_fields if name in flags},
            }
        unknown_flags = flags.keys() - {name for _, names in _fields_by_model() for name in names}
        if unknown_flags:
            raise SettingsError(f"no such setting: {', '.join(sorted(unknown_flags))}")
        _fill_derived_defaults(values, groups)
        try:
            return cls.model_validate({**values, **groups})
        except ValidationError as exc:
            raise SettingsError(describe(exc, cls, GROUPS, flags.keys())) from None


def _fields_by_model() -> list[tuple[type[BaseModel], tuple[str, ...]]]:
    return [(Settings, _PROCESS_FIELDS), *((m, tuple(m.model_fields)) for m in GROUPS.values())]


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


def _fill_derived_defaults(values: Mapping[str, Any], groups: dict[str, dict[str, Any]]) -> None:
    """Defaults that follow other settings, where the environment sets none: lite mode keeps
    its database and index under the data directory (full mode must name them), full mode
    turns authentication on, and a URL
    download may be as large as an upload."""
    data_dir = Path(str(values.get("data_dir", "data")))
    storage = groups["storage"]
    if values.get("mode") != "full":
        storage.setdefault("database_url", f"sqlite:///{(data_dir / 'sluice.db').resolve()}")
        storage.setdefault("milvus_uri", str((data_dir / "milvus.db").resolve()))
    storage.setdefault("storage_dir", data_dir / "files")
    groups["api"].setdefault("auth_required", values.get("mode") == "full")
    upload_cap = groups["api"].get("max_upload_bytes")
    if upload_cap is not None and str(upload_cap).strip().isdigit():
        groups["outbound"].setdefault("url_download_max_bytes", upload_cap)


def settings_or_exit(program: str, overrides: Mapping[str, object] | None = None) -> Settings:
    """from_env for a process entry point: a bad value ends the process with exit status 2
    and one line on stderr naming the variable, before anything has started."""
    try:
        return Settings.from_env(overrides)
    except SettingsError as exc:
        print(f"{program}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
