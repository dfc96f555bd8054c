"""S3-compatible providers: where each one's endpoint is and how it addresses buckets.

Every provider below speaks the S3 protocol, so one client (boto3) serves them all; a preset
only fills in the endpoint from the region and picks the addressing style the provider
accepts. An explicit ``endpoint`` always wins over the template (a private deployment, an
internal VPC endpoint, a test server).

- ``virtual``: ``https://{bucket}.{endpoint host}/{key}``. COS, OSS and TOS refuse
  path-style requests for new buckets, so their presets use it; so do OBS and KS3.
- ``path``: ``https://{endpoint host}/{bucket}/{key}``. MinIO (and test servers) have no
  per-bucket DNS names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AddressingStyle = Literal["virtual", "path", "auto"]
ADDRESSING_STYLES: tuple[AddressingStyle, ...] = ("virtual", "path", "auto")


@dataclass(frozen=True)
class S3Preset:
    name: str
    # ``{region}`` is replaced by the region; None: boto3's own endpoint (AWS), or, when
    # ``endpoint_required``, the deployment must name it.
    endpoint_template: str | None
    addressing_style: AddressingStyle
    default_region: str
    endpoint_required: bool = False


PRESETS: dict[str, S3Preset] = {
    preset.name: preset
    for preset in (
        S3Preset("s3", None, "auto", "us-east-1"),
        S3Preset("minio", None, "path", "us-east-1", endpoint_required=True),
        S3Preset("cos", "https://cos.{region}.myqcloud.com", "virtual", "ap-guangzhou"),
        S3Preset("oss", "https://s3.oss-{region}.aliyuncs.com", "virtual", "cn-hangzhou"),
        S3Preset("tos", "https://tos-s3-{region}.volces.com", "virtual", "cn-beijing"),
        S3Preset("obs", "https://obs.{region}.myhuaweicloud.com", "virtual", "cn-north-4"),
        S3Preset("ks3", "https://ks3-{region}.ksyuncs.com", "virtual", "cn-beijing"),
    )
}


@dataclass(frozen=True)
class ResolvedEndpoint:
    endpoint: str | None  # None: let boto3 choose (AWS S3)
    region: str
    addressing_style: AddressingStyle


def resolve_endpoint(
    preset_name: str,
    *,
    region: str = "",
    endpoint: str = "",
    addressing_style: str = "",
) -> ResolvedEndpoint:
    """The endpoint, region and addressing style for a backend of this preset; explicit
    values win over the preset's. Raises ValueError for an unknown preset or style, or a
    preset that needs an endpoint and has none."""
    preset = PRESETS.get(preset_name)
    if preset is None:
        raise ValueError(f"unknown S3 preset {preset_name!r}; known: {', '.join(PRESETS)}")
    style = _addressing_style(addressing_style) if addressing_style else preset.addressing_style
    region = region or preset.default_region
    if not endpoint and preset.endpoint_required:
        raise ValueError(f"the {preset.name} preset needs an explicit endpoint")
    if not endpoint and preset.endpoint_template is not None:
        endpoint = preset.endpoint_template.format(region=region)
    return ResolvedEndpoint(endpoint or None, region, style)


def _addressing_style(value: str) -> AddressingStyle:
    for style in ADDRESSING_STYLES:
        if value == style:
            return style
    known = ", ".join(ADDRESSING_STYLES)
    raise ValueError(f"addressing_style must be one of {known}, not {value!r}")
