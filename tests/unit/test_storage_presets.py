"""S3-compatible presets and the storage backend configuration (storage.files.s3_presets,
storage.files.backends, and how Settings reads them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from storage.files.backends import (
    BackendConfigError,
    DummyBackendSpec,
    LocalBackendSpec,
    S3BackendSpec,
    build_file_service,
    parse_backends_json,
)
from storage.files.s3_presets import PRESETS, ResolvedEndpoint, resolve_endpoint
from workers.settings import Settings, SettingsError


@pytest.mark.parametrize(
    ("preset", "region", "endpoint"),
    [
        ("cos", "ap-shanghai", "https://cos.ap-shanghai.myqcloud.com"),
        ("oss", "cn-beijing", "https://s3.oss-cn-beijing.aliyuncs.com"),
        ("tos", "cn-shanghai", "https://tos-s3-cn-shanghai.volces.com"),
        ("obs", "cn-north-4", "https://obs.cn-north-4.myhuaweicloud.com"),
        ("ks3", "cn-beijing", "https://ks3-cn-beijing.ksyuncs.com"),
    ],
)
def test_cloud_presets_fill_the_endpoint_from_the_region_and_use_virtual_hosts(
    preset: str, region: str, endpoint: str
) -> None:
    assert resolve_endpoint(preset, region=region) == ResolvedEndpoint(endpoint, region, "virtual")


def test_a_preset_without_a_region_uses_its_default_region() -> None:
    resolved = resolve_endpoint("cos")
    assert resolved.region == PRESETS["cos"].default_region
    assert resolved.endpoint == f"https://cos.{resolved.region}.myqcloud.com"


def test_an_explicit_endpoint_and_style_win_over_the_preset() -> None:
    resolved = resolve_endpoint(
        "oss", region="cn-hangzhou", endpoint="https://oss.internal", addressing_style="path"
    )
    assert resolved == ResolvedEndpoint("https://oss.internal", "cn-hangzhou", "path")


def test_aws_s3_lets_boto3_choose_and_minio_needs_an_endpoint() -> None:
    assert resolve_endpoint("s3", region="eu-west-1") == ResolvedEndpoint(None, "eu-west-1", "auto")
    assert resolve_endpoint("minio", endpoint="http://minio:9000") == ResolvedEndpoint(
        "http://minio:9000", "us-east-1", "path"
    )
    with pytest.raises(ValueError, match="needs an explicit endpoint"):
        resolve_endpoint("minio")


def test_unknown_presets_and_styles_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown S3 preset 'gcs'"):
        resolve_endpoint("gcs")
    with pytest.raises(ValueError, match="addressing_style"):
        resolve_endpoint("s3", addressing_style="sideways")


def test_a_configuration_of_several_backends_is_parsed() -> None:
    specs = parse_backends_json(
        json.dumps(
            {
                "disk": {"provider": "local", "dir": "/srv/files"},
                "main": {
                    "provider": "s3",
                    "preset": "minio",
                    "endpoint": "http://minio:9000",
                    "bucket": "sluice",
                    "temp_bucket": "sluice-tmp",
                    "access_key": "ak",
                    "secret_key": "sk",
                    "part_size_mb": 16,
                },
                "tencent": {"provider": "cos", "region": "ap-beijing", "bucket": "b-125"},
                "null": {"provider": "dummy"},
            }
        )
    )

    assert specs["disk"] == LocalBackendSpec(Path("/srv/files"))
    assert specs["null"] == DummyBackendSpec()
    main = specs["main"]
    assert isinstance(main, S3BackendSpec) and main.preset == "minio"
    assert (main.config.endpoint, main.config.addressing_style) == ("http://minio:9000", "path")
    assert (main.config.bucket, main.config.temp_bucket) == ("sluice", "sluice-tmp")
    assert main.config.part_size == 16 << 20
    tencent = specs["tencent"]
    assert isinstance(tencent, S3BackendSpec) and tencent.preset == "cos"
    assert tencent.config.endpoint == "https://cos.ap-beijing.myqcloud.com"
    assert tencent.config.addressing_style == "virtual"


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ("[]", "non-empty JSON object"),
        ("{}", "non-empty JSON object"),
        ("{not json", "not valid JSON"),
        ('{"a b": {"provider": "dummy"}}', "backend id 'a b'"),
        ('{"x": {"provider": "ftp"}}', "provider must be one of"),
        ('{"x": {"provider": "local"}}', "needs a dir"),
        ('{"x": {"provider": "local", "dir": "/d", "bucket": "b"}}', "unknown keys"),
        ('{"x": {"provider": "s3", "region": "us-east-1"}}', "needs a bucket"),
        ('{"x": {"provider": "s3", "bucket": "b", "buket": "b"}}', "unknown keys \\['buket'\\]"),
        ('{"x": {"provider": "s3", "bucket": "b", "part_size_mb": 4}}', "part_size"),
        ('{"x": {"provider": "s3", "bucket": "b", "part_size_mb": "8"}}', "integer"),
        ('{"x": {"provider": "minio", "bucket": "b"}}', "explicit endpoint"),
    ],
)
def test_bad_configurations_are_refused_with_the_reason(config: str, error: str) -> None:
    with pytest.raises(BackendConfigError, match=error):
        parse_backends_json(config)


def test_settings_default_to_one_local_backend_at_the_storage_dir(tmp_path: Path) -> None:
    settings = Settings.from_env(env={"SLUICE_DATA_DIR": str(tmp_path)})
    assert settings.storage.file_backends == {"local": LocalBackendSpec(tmp_path / "files")}
    assert settings.storage.file_default_backend == "local"
    storage = settings.storage
    files = build_file_service(storage.file_backends, storage.file_default_backend)
    assert not files.is_scoped
    assert files.save_bytes("t1", "a.txt", b"x").startswith("local://t1/exports/a_")


def test_settings_read_the_backends_and_the_default(tmp_path: Path) -> None:
    backends = {"disk": {"provider": "local", "dir": str(tmp_path)}, "null": {"provider": "dummy"}}
    env = {"SLUICE_STORAGE_BACKENDS": json.dumps(backends)}
    settings = Settings.from_env(env={**env, "SLUICE_STORAGE_DEFAULT_BACKEND": "null"})
    assert list(settings.storage.file_backends) == ["disk", "null"]
    assert settings.storage.file_default_backend == "null"
    assert Settings.from_env(env=env).storage.file_default_backend == "disk"  # the first one

    with pytest.raises(SettingsError, match="'s3' is not one of the configured backends"):
        Settings.from_env(env={**env, "SLUICE_STORAGE_DEFAULT_BACKEND": "s3"})
    with pytest.raises(SettingsError, match="SLUICE_STORAGE_BACKENDS: x: provider"):
        Settings.from_env(env={"SLUICE_STORAGE_BACKENDS": '{"x": {"provider": "nfs"}}'})
