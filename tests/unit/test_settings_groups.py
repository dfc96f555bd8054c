"""The groups of Settings: a field name says which setting it is across all of them (flags
name settings by field), and every variable is read into exactly one field."""

from __future__ import annotations

from collections import Counter

from workers.settings import GROUPS, Settings
from workers.settings_env import variable_of


def test_field_names_are_unique_across_the_groups() -> None:
    names = Counter(
        [*("mode", "data_dir"), *(name for group in GROUPS.values() for name in group.model_fields)]
    )
    assert [name for name, count in names.items() if count > 1] == []


def test_each_variable_sets_its_groups_field() -> None:
    for group_name, group in GROUPS.items():
        for name in group.model_fields:
            variable = variable_of(group, name)
            settings = Settings.from_env(env={variable: _a_valid_value(name)})
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
        "redis_url": "redis://127.0.0.1:6390/0",
        "milvus_uri": "/tmp/other-milvus.db",
        "storage_dir": "/tmp/other-files",
        "key_prefix": "other",
        "deleted_resource_retention_s": "9000000",
        "grant_default_ttl_s": "60",
        "grant_max_ttl_s": "1000",
        "stale_after_s": "120",
    }
    return special.get(name, "5")
