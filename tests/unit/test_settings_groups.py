"""The groups of Settings: a field name says which setting it is across all of them (flags
name settings by field), and every variable is read into exactly one field."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tests.support.certificates import make_certificates
from workers.settings import GROUPS, Settings
from workers.settings_env import variable_of
from workers.settings_tls import TlsSettings


def test_field_names_are_unique_across_the_groups() -> None:
    names = Counter(
        [*("mode", "data_dir"), *(name for group in GROUPS.values() for name in group.model_fields)]
    )
    assert [name for name, count in names.items() if count > 1] == []


def test_each_variable_sets_its_groups_field(tmp_path: Path) -> None:
    # The TLS files come in pairs (and a CA with its certificate): each is set with the rest.
    certs = make_certificates(tmp_path)
    tls = dict(
        zip(
            TlsSettings.model_fields,
            map(
                str,
                (
                    certs.server_cert,
                    certs.server_key,
                    certs.ca,
                    certs.ca,
                    certs.client_cert,
                    certs.client_key,
                ),
            ),
            strict=True,
        )
    )
    for group_name, group in GROUPS.items():
        for name in group.model_fields:
            variable = variable_of(group, name)
            companions = (
                {variable_of(TlsSettings, f): v for f, v in tls.items()} if name in tls else {}
            )
            value = tls.get(name) or _a_valid_value(name)
            settings = Settings.from_env(env={**companions, variable: value})
            default = getattr(Settings.from_env(env={}), group_name)
            assert getattr(getattr(settings, group_name), name) != getattr(default, name), variable


def _a_valid_value(name: str) -> str:
    special = {
        "api_address": "127.0.0.1:7",
        "docreader_address": "127.0.0.1:8",
        "auth_required": "true",
        "housekeeping_enabled": "false",
        "storage_backends": '{"disk": {"provider": "local", "dir": "/tmp/x"}}',
        "storage_default_backend": "local",
        "document_process_retry_delays_s": "1,2",
        "ssrf_allow_hosts": "images.intranet",
        "database_url": "sqlite:////tmp/other.db",
        # Above the FAQ clone's 600 s budget, which must stay below it.
        "kb_clone_timeout_s": "1200",
        "redis_url": "redis://127.0.0.1:6390/0",
        "milvus_uri": "/tmp/other-milvus.db",
        "storage_dir": "/tmp/other-files",
        "key_prefix": "other",
        "deleted_resource_retention_s": "9000000",
        "grant_default_ttl_s": "60",
        "grant_max_ttl_s": "1000",
        "stale_after_s": "120",
        "log_level": "debug",
        "log_format": "console",
        "otlp_endpoint": "http://127.0.0.1:4317",
        "otel_service_name": "sluice-test",
        "trace_sample_ratio": "0.5",
    }
    return special.get(name, "5")
