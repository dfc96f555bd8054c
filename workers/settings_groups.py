"""The groups of ``Settings``, one per concern: what each process part reads of the
configuration is one of these, not the whole list of SLUICE_* variables.

A field is read from SLUICE_<FIELD NAME> unless its ``validation_alias`` names another
variable (see workers.settings_env.variable_of); field names are unique across the groups,
which is what lets a command-line flag name its setting by the field alone.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.ssrf.url_policy import UrlPolicy
from storage.files.backends import DEFAULT_LOCAL_BACKEND_ID, BackendSpec, LocalBackendSpec
from storage.queue.pools import Pool, PoolSpec, default_size, pool_specs
from workers.settings_types import (
    Address,
    BackendSpecs,
    Flag,
    NonNegativeInts,
    OptionalAddress,
    StringSet,
)


class SettingsGroup(BaseModel):
    """Parsed strictly and frozen, like the whole: a group is handed around, never edited."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        allow_inf_nan=False,
    )


class ApiSettings(SettingsGroup):
    """The gRPC API: where it listens, who may call it, how much a call may carry."""

    api_address: Address = "127.0.0.1:50051"
    # from_env: on by default in full mode.
    auth_required: Flag = False
    max_upload_bytes: int = Field(default=1 << 30, gt=0)
    max_message_bytes: int = Field(default=64 << 20, gt=0)
    watch_poll_interval_s: float = Field(
        default=2.0, gt=0, validation_alias="SLUICE_WATCH_POLL_INTERVAL"
    )
    # GetSpans' stall verdict: how long a round may go without progress before it is shown.
    stall_verdict_after_s: int = Field(
        default=1200, gt=0, validation_alias="SLUICE_STALL_VERDICT_AFTER"
    )


class StorageSettings(SettingsGroup):
    """The database, the vector index, stored files and the access grants to them."""

    # Lite mode: from_env fills these three in under the data directory. Full mode must
    # name the database and the index (the processes share them).
    database_url: str = ""
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
    # Access grants to stored files (ResourceService): the lifetime of a grant that asks for
    # none and the longest one may ask for.
    grant_default_ttl_s: int = Field(default=900, validation_alias="SLUICE_GRANT_DEFAULT_TTL")
    grant_max_ttl_s: int = Field(default=86400, gt=0, validation_alias="SLUICE_GRANT_MAX_TTL")

    @property
    def file_backends(self) -> dict[str, BackendSpec]:
        return dict(self.storage_backends) or {
            DEFAULT_LOCAL_BACKEND_ID: LocalBackendSpec(self.storage_dir)
        }

    @property
    def file_default_backend(self) -> str:
        return self.storage_default_backend or next(iter(self.file_backends))

    @model_validator(mode="after")
    def _check_storage(self) -> StorageSettings:
        if self.file_default_backend not in self.file_backends:
            raise ValueError(
                f"SLUICE_STORAGE_DEFAULT_BACKEND {self.file_default_backend!r} is not one "
                f"of the configured backends: {', '.join(self.file_backends)}"
            )
        if not 0 < self.grant_default_ttl_s <= self.grant_max_ttl_s:
            raise ValueError(
                "SLUICE_GRANT_DEFAULT_TTL must be > 0 and at most SLUICE_GRANT_MAX_TTL"
            )
        return self


class QueueSettings(SettingsGroup):
    """Redis, the task queues and how a document:process task is run and retried."""

    redis_url: str = Field(default="redis://127.0.0.1:6379/0", min_length=1)
    key_prefix: str = Field(default="sluice", min_length=1)
    # Workers per pool (storage.queue.pools: its queues; default: the spec's scaled to the
    # machine's cores): lite mode's threads, and `sluice-worker --pool NAME`'s processes.
    pool_core: int = Field(default_factory=lambda: default_size(Pool.CORE), ge=1)
    pool_postprocess: int = Field(default_factory=lambda: default_size(Pool.POSTPROCESS), ge=1)
    pool_enrichment: int = Field(default_factory=lambda: default_size(Pool.ENRICHMENT), ge=1)
    pool_wiki: int = Field(default_factory=lambda: default_size(Pool.WIKI), ge=1)
    pool_maintenance: int = Field(default_factory=lambda: default_size(Pool.MAINTENANCE), ge=1)
    pool_elastic: int = Field(default_factory=lambda: default_size(Pool.ELASTIC), ge=1)
    document_process_timeout_s: int = Field(
        default=7200, gt=0, validation_alias="SLUICE_DOCUMENT_PROCESS_TIMEOUT"
    )
    document_process_retries: int = Field(default=3, ge=0)
    # Seconds before retry k of document:process (the last one repeats): spread out so a
    # short database or docreader outage does not burn every attempt at once.
    document_process_retry_delays_s: NonNegativeInts = Field(
        default=(10, 30, 60), min_length=1, validation_alias="SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS"
    )
    # On SIGTERM a worker hands its running round back to the queue and exits within this
    # many seconds (lite mode: the executor's shutdown waits as long).
    worker_shutdown_grace_s: float = Field(default=30.0, gt=0)
    # wiki:ingest's debounce: the ingests a knowledge base's rounds queue within one window
    # are written by one task, which starts once the window is over.
    wiki_debounce_s: float = Field(default=10.0, gt=0, validation_alias="SLUICE_WIKI_DEBOUNCE")
    # An FAQ clone task starts no batch after this many seconds: it queues the next task for
    # the batches left, so a large FAQ clone never needs to fit inside one task's time limit.
    kb_clone_faq_budget_s: float = Field(
        default=600.0, gt=0, validation_alias="SLUICE_KB_CLONE_FAQ_BUDGET"
    )
    # The time limit of each knowledge base clone task (one knowledge's copy). A worker killed
    # mid-task leaves its task to RQ, which retries it once this limit (plus a minute) lapsed.
    kb_clone_timeout_s: int = Field(default=900, gt=0, validation_alias="SLUICE_KB_CLONE_TIMEOUT")
    # A running task renews a heartbeat key this long-lived (three times per TTL); a
    # maintenance job (FAQ import, move, clone) whose task has none is queued again by
    # housekeeping, so a SIGKILLed worker costs about this long, not the job's time limit.
    task_heartbeat_ttl_s: float = Field(
        default=60.0, gt=0, validation_alias="SLUICE_TASK_HEARTBEAT_TTL"
    )

    def pool_size(self, pool: Pool) -> int:
        size: int = getattr(self, f"pool_{pool.value}")
        return size

    def pools(self) -> list[PoolSpec]:
        return pool_specs({pool: self.pool_size(pool) for pool in Pool})

    @model_validator(mode="after")
    def _check_kb_clone_budget(self) -> QueueSettings:
        # The batch started last must still end inside the task's time limit.
        if self.kb_clone_faq_budget_s >= self.kb_clone_timeout_s:
            raise ValueError(
                f"SLUICE_KB_CLONE_FAQ_BUDGET ({self.kb_clone_faq_budget_s}s) must be below "
                f"SLUICE_KB_CLONE_TIMEOUT ({self.kb_clone_timeout_s}s)"
            )
        return self


class DocreaderSettings(SettingsGroup):
    """Reaching the docreader, and the limits of lite mode's in-process one."""

    # Empty in lite mode: the docreader is started in-process on a unix socket.
    docreader_address: OptionalAddress = ""
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


class HousekeepingSettings(SettingsGroup):
    """The sweeps (spec: «Самовосстановление Housekeeping»), run every housekeeping_interval_s;
    stale_after_s 0 means the spec's threshold (see Settings.stale_threshold_s)."""

    housekeeping_enabled: Flag = True
    housekeeping_interval_s: float = Field(
        default=300.0, gt=0, validation_alias="SLUICE_HOUSEKEEPING_INTERVAL"
    )
    stale_after_s: int = Field(default=0, ge=0, validation_alias="SLUICE_STALE_AFTER")
    summary_stale_after_s: int = Field(
        default=3600, gt=0, validation_alias="SLUICE_SUMMARY_STALE_AFTER"
    )
    max_auto_requeues: int = Field(default=2, ge=0)
    # How long a pending wiki ingest protects its finalizing document from Sweep A (spec:
    # 48 h); past it the document fails and its wiki operations go.
    wiki_op_max_age_s: int = Field(
        default=48 * 3600, gt=0, validation_alias="SLUICE_WIKI_OP_MAX_AGE"
    )
    # How long the records of a deleted knowledge's files stay (a stale reference reads
    # "deleted", not "unknown") before a sweep forgets them.
    deleted_resource_retention_s: int = Field(
        default=7 * 86400, validation_alias="SLUICE_DELETED_RESOURCE_RETENTION"
    )


class ModelSettings(SettingsGroup):
    """The models of each process: the embedders, and the calls to chat and vision models."""

    embed_batch_size: int = Field(default=32, ge=1)
    # onnxruntime threads of the local embedding model in each process; 0 = one per core.
    # Worker processes sharing a machine should split its cores between them: each one
    # running a thread per core oversubscribes the CPU and slows them all down.
    embed_threads: int = Field(default=0, ge=0)
    # Chat and vision model calls (workers.models): at most model_concurrency requests of a
    # process in flight to one model at one endpoint; each request ends within
    # model_timeout_s; a rate limit, server error or unreachable endpoint is retried
    # model_max_retries times with backoff.
    model_concurrency: int = Field(default=4, ge=1)
    model_timeout_s: float = Field(default=120.0, gt=0, validation_alias="SLUICE_MODEL_TIMEOUT")
    model_max_retries: int = Field(default=3, ge=0)


class OutboundSettings(SettingsGroup):
    """Outbound requests (remote images, URL import, model endpoints): SSRF-guarded, capped."""

    # These entries, "host" or "host:port" ("[v6]:port"), skip the address checks (an
    # internal image server, say); a blocked port opens only to an entry naming it.
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

    @model_validator(mode="after")
    def _check_allow_list(self) -> OutboundSettings:
        try:
            UrlPolicy(allow_hosts=self.ssrf_allow_hosts)
        except ValueError as exc:
            raise ValueError(f"SLUICE_SSRF_ALLOW_HOSTS: {exc}") from exc
        return self
