"""What an S3 backend is configured with (kept apart from boto3, which only the backend
itself needs: reading the configuration stays cheap for every process)."""

from __future__ import annotations

from dataclasses import dataclass, field

from storage.files.s3_presets import AddressingStyle

MIN_PART_SIZE = 5 << 20  # S3 refuses smaller parts (except the last)
DEFAULT_PART_SIZE = 8 << 20
DEFAULT_MAX_PARALLEL_PARTS = 2
# SigV4 presigned URLs live at most 7 days.
MAX_URL_EXPIRY_S = 7 * 24 * 3600


@dataclass(frozen=True)
class S3Config:
    bucket: str
    region: str = "us-east-1"
    endpoint: str | None = None  # None: AWS S3 itself
    addressing_style: AddressingStyle = "auto"
    # Empty: boto3's default credential chain (AWS_* variables, instance role…). Kept out of
    # repr, so settings that get logged do not leak them.
    access_key: str = field(default="", repr=False)
    secret_key: str = field(default="", repr=False)
    temp_bucket: str = ""
    part_size: int = DEFAULT_PART_SIZE
    max_parallel_parts: int = DEFAULT_MAX_PARALLEL_PARTS
    url_expiry_s: int = MAX_URL_EXPIRY_S
    # Where the bucket is served publicly (a CDN, a public-read bucket): ``url`` then gives
    # ``{public_base_url}/{key}``, a link that does not expire, instead of a presigned one.
    public_base_url: str = ""
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 60.0

    def __post_init__(self) -> None:
        if not self.bucket:
            raise ValueError("an S3 backend needs a bucket")
        if self.part_size < MIN_PART_SIZE:
            raise ValueError(f"part_size must be at least {MIN_PART_SIZE} bytes (S3's minimum)")
        if self.max_parallel_parts < 1:
            raise ValueError("max_parallel_parts must be at least 1")
        if not 1 <= self.url_expiry_s <= MAX_URL_EXPIRY_S:
            raise ValueError(f"url_expiry_s must be between 1 and {MAX_URL_EXPIRY_S}")
