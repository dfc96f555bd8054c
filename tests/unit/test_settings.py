"""SLUICE_* variables → Settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from core.payloads import DocumentProcessPayload
from workers import task_specs
from workers.settings import Settings, SettingsError
from workers.settings_groups import ModelSettings


def test_lite_needs_no_variable_and_keeps_everything_under_the_data_dir() -> None:
    settings = Settings.from_env(env={"SLUICE_DATA_DIR": "/tmp/sluice-x"})
    assert settings.mode == "lite"
    assert settings.storage.database_url == "sqlite:////tmp/sluice-x/sluice.db"
    assert settings.storage.milvus_uri == "/tmp/sluice-x/milvus.db"
    assert settings.storage.storage_dir == Path("/tmp/sluice-x/files")
    assert not settings.api.auth_required


FULL_MODE = {
    "SLUICE_MODE": "full",
    "SLUICE_DOCREADER_ADDRESS": "h:1",
    "SLUICE_DATABASE_URL": "postgresql+psycopg://sluice@db/sluice",
    "SLUICE_MILVUS_URI": "http://milvus:19530",
}


@pytest.mark.parametrize(
    "variable", ["SLUICE_DOCREADER_ADDRESS", "SLUICE_DATABASE_URL", "SLUICE_MILVUS_URI"]
)
def test_full_mode_requires_what_its_processes_share(variable: str) -> None:
    env = {name: value for name, value in FULL_MODE.items() if name != variable}
    with pytest.raises(SettingsError, match=f"^{variable} is required in full mode$"):
        Settings.from_env(env=env)


def test_full_mode_keeps_the_given_uris_and_turns_auth_on() -> None:
    full = Settings.from_env(env=FULL_MODE)
    assert full.storage.database_url == FULL_MODE["SLUICE_DATABASE_URL"]
    assert full.storage.milvus_uri == FULL_MODE["SLUICE_MILVUS_URI"]
    assert full.api.auth_required


def test_flags_win_over_the_environment() -> None:
    settings = Settings.from_env(
        {"mode": "lite", "api_address": "127.0.0.1:0"},
        env={"SLUICE_MODE": "full", "SLUICE_API_ADDRESS": "0.0.0.0:1"},
    )
    assert (settings.mode, settings.api.api_address) == ("lite", "127.0.0.1:0")


def test_bad_numbers_are_named() -> None:
    with pytest.raises(SettingsError, match="SLUICE_MAX_UPLOAD_BYTES"):
        Settings.from_env(env={"SLUICE_MAX_UPLOAD_BYTES": "lots"})


def test_embed_threads_default_to_one_per_core_and_refuse_negative_counts() -> None:
    assert Settings.from_env(env={}).models.embed_threads == 0
    assert Settings.from_env(env={"SLUICE_EMBED_THREADS": "1"}).models.embed_threads == 1
    with pytest.raises(SettingsError, match="SLUICE_EMBED_THREADS"):
        Settings.from_env(env={"SLUICE_EMBED_THREADS": "-1"})


def test_document_process_retry_delays_default_spread_out_and_refuse_bad_values() -> None:
    assert Settings.from_env(env={}).queue.document_process_retry_delays_s == (10, 30, 60)
    configured = Settings.from_env(env={"SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS": "0, 5,120"})
    assert configured.queue.document_process_retry_delays_s == (0, 5, 120)
    for bad in ("10,-1", "10,,30", "soon"):
        with pytest.raises(SettingsError, match="SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS"):
            Settings.from_env(env={"SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS": bad})


def test_document_process_tasks_wait_the_configured_delays_between_retries() -> None:
    settings = Settings.from_env(env={"SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS": "3,7"})
    payload = DocumentProcessPayload(
        tenant_id="t1", knowledge_id="k1", knowledge_base_id="kb1", attempt=1
    )
    spec = task_specs.document_process(settings, payload)
    assert [spec.retry_delay(k) for k in range(1, spec.max_retries + 1)] == [3, 7, 7]


def test_url_import_limits_default_to_the_upload_cap_and_refuse_non_positive_values() -> None:
    settings = Settings.from_env(env={"SLUICE_MAX_UPLOAD_BYTES": "5000"})
    outbound = settings.outbound
    assert outbound.url_download_max_bytes == 5000
    assert (outbound.url_page_max_bytes, outbound.url_import_timeout_s) == (20 << 20, 600.0)
    tuned = Settings.from_env(
        env={
            "SLUICE_URL_DOWNLOAD_MAX_BYTES": "700",
            "SLUICE_URL_CONNECT_TIMEOUT_S": "2.5",
            "SLUICE_SSRF_ALLOW_HOSTS": "files.intranet, 10.0.0.7",
        }
    )
    tuned_outbound = tuned.outbound
    assert (tuned_outbound.url_download_max_bytes, tuned_outbound.url_connect_timeout_s) == (
        700,
        2.5,
    )
    assert tuned.url_policy.allow_hosts == frozenset({"files.intranet", "10.0.0.7"})
    for name in (
        "SLUICE_URL_DOWNLOAD_MAX_BYTES",
        "SLUICE_URL_PAGE_MAX_BYTES",
        "SLUICE_URL_IMPORT_TIMEOUT_S",
        "SLUICE_URL_CONNECT_TIMEOUT_S",
    ):
        with pytest.raises(SettingsError, match=f"{name} must be > 0"):
            Settings.from_env(env={name: "0"})


def test_access_grant_lifetimes_default_to_15_minutes_and_a_day_and_must_be_ordered() -> None:
    settings = Settings.from_env(env={})
    assert (settings.storage.grant_default_ttl_s, settings.storage.grant_max_ttl_s) == (900, 86400)
    assert settings.housekeeping.deleted_resource_retention_s == 7 * 86400
    tuned = Settings.from_env(
        env={
            "SLUICE_GRANT_DEFAULT_TTL": "60",
            "SLUICE_GRANT_MAX_TTL": "120",
            "SLUICE_STALE_AFTER": "300",
            "SLUICE_DELETED_RESOURCE_RETENTION": "300",
        }
    )
    assert (tuned.storage.grant_default_ttl_s, tuned.storage.grant_max_ttl_s) == (60, 120)
    assert tuned.housekeeping.deleted_resource_retention_s == 300
    for env in ({"SLUICE_GRANT_DEFAULT_TTL": "0"}, {"SLUICE_GRANT_MAX_TTL": "600"}):
        with pytest.raises(SettingsError, match="SLUICE_GRANT_DEFAULT_TTL must be > 0"):
            Settings.from_env(env=env)


@pytest.mark.parametrize(
    "env",
    [
        {"SLUICE_DELETED_RESOURCE_RETENTION": "0"},
        {"SLUICE_DELETED_RESOURCE_RETENTION": "-1"},
        {"SLUICE_DELETED_RESOURCE_RETENTION": "7799"},  # the default threshold is 2h10m
        {"SLUICE_STALE_AFTER": "300", "SLUICE_DELETED_RESOURCE_RETENTION": "299"},
    ],
)
def test_deleted_resources_are_retained_at_least_the_stale_threshold(
    env: dict[str, str],
) -> None:
    # Sweep C may hand a stuck deletion back, files and all, once the threshold has passed.
    threshold = Settings.from_env(env={"SLUICE_STALE_AFTER": env.get("SLUICE_STALE_AFTER", "0")})
    with pytest.raises(
        SettingsError,
        match=rf"SLUICE_DELETED_RESOURCE_RETENTION must be at least the stale threshold "
        rf"\({threshold.stale_threshold_s} s",
    ):
        Settings.from_env(env=env)


@pytest.mark.parametrize("word", ["ture", "maybe", "on", "off", "y", "2", "enabled"])
def test_booleans_are_only_true_false_1_0_yes_no(word: str) -> None:
    for name in ("SLUICE_AUTH_REQUIRED", "SLUICE_HOUSEKEEPING_ENABLED"):
        with pytest.raises(
            SettingsError, match=rf"^{name} must be one of true/false/1/0/yes/no, not '{word}'$"
        ):
            Settings.from_env(env={name: word})


@pytest.mark.parametrize(
    ("word", "value"),
    [("true", True), ("YES", True), ("1", True), ("False", False), ("no", False), ("0", False)],
)
def test_the_accepted_boolean_words_in_any_case(word: str, value: bool) -> None:
    settings = Settings.from_env(
        env={**FULL_MODE, "SLUICE_AUTH_REQUIRED": word, "SLUICE_HOUSEKEEPING_ENABLED": word}
    )
    flags = (settings.api.auth_required, settings.housekeeping.housekeeping_enabled)
    assert flags == (value, value)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("SLUICE_EMBED_BATCH_SIZE", "-1", "must be >= 1, not '-1'"),
        ("SLUICE_EMBED_BATCH_SIZE", "0", "must be >= 1, not '0'"),
        ("SLUICE_POOL_CORE", "0", "must be >= 1, not '0'"),
        ("SLUICE_POOL_ENRICHMENT", "-3", "must be >= 1, not '-3'"),
        ("SLUICE_POOL_WIKI", "many", "must be an integer, not 'many'"),
        ("SLUICE_MAX_UPLOAD_BYTES", "0", "must be > 0, not '0'"),
        ("SLUICE_MAX_MESSAGE_BYTES", "-5", "must be > 0, not '-5'"),
        ("SLUICE_DOCUMENT_PROCESS_TIMEOUT", "0", "must be > 0, not '0'"),
        ("SLUICE_DOCREADER_CALL_TIMEOUT", "-1", "must be > 0, not '-1'"),
        ("SLUICE_DOCREADER_PARSE_TIMEOUT", "0", "must be > 0, not '0'"),
        ("SLUICE_DOCREADER_MEMORY_CAP_MB", "-1", "must be >= 0, not '-1'"),
        ("SLUICE_DOCREADER_MAX_INPUT_MB", "-1", "must be >= 0, not '-1'"),
        ("SLUICE_DOCUMENT_PROCESS_RETRIES", "-1", "must be >= 0, not '-1'"),
        ("SLUICE_WATCH_POLL_INTERVAL", "0", "must be > 0, not '0'"),
        ("SLUICE_WATCH_POLL_INTERVAL", "soon", "must be a number, not 'soon'"),
        ("SLUICE_FETCH_TIMEOUT_S", "inf", "must be a finite number, not 'inf'"),
        ("SLUICE_STALE_AFTER", "-1", "must be >= 0, not '-1'"),
        ("SLUICE_SUMMARY_STALE_AFTER", "0", "must be > 0, not '0'"),
        ("SLUICE_STALL_VERDICT_AFTER", "0", "must be > 0, not '0'"),
        ("SLUICE_GRANT_MAX_TTL", "0", "must be > 0, not '0'"),
        ("SLUICE_STORAGE_HEALTH_INTERVAL", "-2.5", "must be > 0, not '-2.5'"),
        ("SLUICE_EMBED_THREADS", "2.5", "must be an integer, not '2.5'"),
        ("SLUICE_MODE", "ful", "must be 'lite' or 'full', not 'ful'"),
        ("SLUICE_KEY_PREFIX", "", None),  # empty is unset: the default stays
        ("SLUICE_API_ADDRESS", "127.0.0.1:65536", "must end in a port from 0 to 65535"),
        ("SLUICE_API_ADDRESS", "localhost", "must be host:port or unix:/path"),
        ("SLUICE_DOCREADER_ADDRESS", "docreader:port", "must end in a port from 0 to 65535"),
        ("SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS", "", None),
    ],
)
def test_every_range_is_checked_and_named(name: str, value: str, message: str | None) -> None:
    env = {name: value}
    if message is None:
        assert Settings.from_env(env=env) == Settings.from_env(env={})
        return
    with pytest.raises(SettingsError) as raised:
        Settings.from_env(env=env)
    assert str(raised.value).startswith(f"{name} {message}")
    assert "\n" not in str(raised.value)


def test_addresses_may_be_unix_sockets_or_any_port() -> None:
    settings = Settings.from_env(
        env={
            **FULL_MODE,
            "SLUICE_API_ADDRESS": "[::]:0",
            "SLUICE_DOCREADER_ADDRESS": "unix:/run/sluice/docreader.sock",
        }
    )
    assert settings.api.api_address == "[::]:0"
    assert settings.docreader.docreader_address == "unix:/run/sluice/docreader.sock"


def test_several_bad_values_are_named_on_one_line() -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env(env={"SLUICE_EMBED_BATCH_SIZE": "-1", "SLUICE_AUTH_REQUIRED": "ture"})
    assert str(raised.value) == (
        "SLUICE_AUTH_REQUIRED must be one of true/false/1/0/yes/no, not 'ture'; "
        "SLUICE_EMBED_BATCH_SIZE must be >= 1, not '-1'"
    )


def test_a_bad_command_line_value_names_the_setting() -> None:
    with pytest.raises(SettingsError, match=r"^api_address \(command line\) must be host:port"):
        Settings.from_env({"api_address": "nowhere"}, env={})


def test_unknown_variables_stop_with_the_closest_known_name() -> None:
    env = {
        "SLUICE_AUTH_REQUIERD": "true",
        "SLUICE_EMBED_BATCHSIZE": "8",
        "SLUICE_FROBNICATE": "1",
        "SLUICE_TARGET": "h:1",
        "OTHER_VARIABLE": "x",
    }
    with pytest.raises(SettingsError) as refused:
        Settings.from_env(env=env)
    assert str(refused.value) == (
        "SLUICE_AUTH_REQUIERD is not a Sluice setting; did you mean SLUICE_AUTH_REQUIRED?; "
        "SLUICE_EMBED_BATCHSIZE is not a Sluice setting; did you mean SLUICE_EMBED_BATCH_SIZE?; "
        "SLUICE_FROBNICATE is not a Sluice setting"
    )


def test_variables_other_sluice_programs_read_are_not_unknown() -> None:
    env = {"SLUICE_TARGET": "h:1", "SLUICE_API_KEY": "k", "SLUICE_DOCREADER_LO_PROFILES": "/p"}
    # The CLI's TLS files, which a shell that also starts the server may export.
    env |= {"SLUICE_CA_FILE": "c", "SLUICE_CERT_FILE": "c", "SLUICE_KEY_FILE": "k"}
    env |= {"SLUICE_TLS": "1"}
    assert Settings.from_env(env=env).mode == "lite"


def test_the_settings_object_reads_no_environment_by_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLUICE_EMBED_BATCH_SIZE", "7")
    assert Settings().models.embed_batch_size == 32
    assert Settings.from_env().models.embed_batch_size == 7
    with pytest.raises(ValidationError):
        Settings(models=ModelSettings(embed_batch_size=0))
    with pytest.raises(ValidationError):
        Settings(embed_batch_sise=8)  # type: ignore[call-arg]


def test_worker_shutdown_grace_defaults_to_30_seconds_and_must_be_positive() -> None:
    assert Settings.from_env(env={}).queue.worker_shutdown_grace_s == 30.0
    grace = Settings.from_env(env={"SLUICE_WORKER_SHUTDOWN_GRACE_S": "7.5"})
    assert grace.queue.worker_shutdown_grace_s == 7.5
    for raw in ("0", "-1"):
        with pytest.raises(SettingsError, match="SLUICE_WORKER_SHUTDOWN_GRACE_S must be > 0"):
            Settings.from_env(env={"SLUICE_WORKER_SHUTDOWN_GRACE_S": raw})
    with pytest.raises(SettingsError, match="SLUICE_WORKER_SHUTDOWN_GRACE_S must be a number"):
        Settings.from_env(env={"SLUICE_WORKER_SHUTDOWN_GRACE_S": "soon"})


def test_model_call_settings_default_and_refuse_what_cannot_work() -> None:
    models = Settings.from_env(env={}).models
    assert (models.model_concurrency, models.model_timeout_s, models.model_max_retries) == (
        4,
        120.0,
        3,
    )
    configured = Settings.from_env(
        env={
            "SLUICE_MODEL_CONCURRENCY": "1",
            "SLUICE_MODEL_TIMEOUT": "30",
            "SLUICE_MODEL_MAX_RETRIES": "0",
        }
    ).models
    assert (configured.model_concurrency, configured.model_timeout_s) == (1, 30.0)
    assert configured.model_max_retries == 0
    for variable, bad in [
        ("SLUICE_MODEL_CONCURRENCY", "0"),
        ("SLUICE_MODEL_TIMEOUT", "0"),
        ("SLUICE_MODEL_MAX_RETRIES", "-1"),
    ]:
        with pytest.raises(SettingsError, match=variable):
            Settings.from_env(env={variable: bad})


def test_the_faq_clone_budget_defaults_below_the_task_limit_and_must_stay_below_it() -> None:
    queue = Settings.from_env(env={}).queue
    assert (queue.kb_clone_faq_budget_s, queue.kb_clone_timeout_s) == (600.0, 900)
    short = Settings.from_env(env={"SLUICE_KB_CLONE_FAQ_BUDGET": "0.5"}).queue
    assert short.kb_clone_faq_budget_s == 0.5
    for env in (
        {"SLUICE_KB_CLONE_TIMEOUT": "600"},
        {"SLUICE_KB_CLONE_FAQ_BUDGET": "900"},
        {"SLUICE_KB_CLONE_FAQ_BUDGET": "0"},
    ):
        with pytest.raises(SettingsError, match="SLUICE_KB_CLONE_FAQ_BUDGET"):
            Settings.from_env(env=env)
