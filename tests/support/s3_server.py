"""A real S3 endpoint for tests: moto's threaded server on a random local port.

The ``s3_server`` fixture (registered for the whole suite in tests/conftest.py) starts one
server per test session; each test makes its own buckets with ``new_bucket``, and every
bucket made is emptied (objects and unfinished multipart uploads) and removed when the
session ends. Clients use path-style addressing and dummy credentials, like a MinIO
deployment would.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.config import Config

from storage.files.s3_config import S3Config

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client

ACCESS_KEY = "sluice-test"
SECRET_KEY = "sluice-test-secret"
REGION = "us-east-1"


class S3Server:
    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.client: S3Client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            config=Config(s3={"addressing_style": "path"}),
        )
        self._buckets: list[str] = []

    def new_bucket(self, prefix: str = "sluice") -> str:
        """A fresh, empty bucket with a name no other test uses."""
        return self.create_bucket(f"{prefix}-{uuid.uuid4().hex[:12]}")

    def create_bucket(self, name: str) -> str:
        """Create bucket ``name`` (removed with the others when the session ends)."""
        self.client.create_bucket(Bucket=name)
        self._buckets.append(name)
        return name

    def config(self, bucket: str, **overrides: Any) -> S3Config:
        """An S3Config for ``bucket`` on this server (path-style, like MinIO)."""
        return S3Config(
            bucket=bucket,
            region=REGION,
            endpoint=self.endpoint,
            addressing_style="path",
            access_key=ACCESS_KEY,
            secret_key=SECRET_KEY,
            **overrides,
        )

    def backend_json(self, bucket: str, **extra: Any) -> dict[str, Any]:
        """The SLUICE_STORAGE_BACKENDS entry of a backend on ``bucket`` (minio preset)."""
        return {
            "provider": "s3",
            "preset": "minio",
            "endpoint": self.endpoint,
            "region": REGION,
            "bucket": bucket,
            "access_key": ACCESS_KEY,
            "secret_key": SECRET_KEY,
            **extra,
        }

    def objects(self, bucket: str) -> dict[str, bytes]:
        """Every object in ``bucket``: key → content."""
        return {key: self.read(bucket, key) for key in self.keys(bucket)}

    def keys(self, bucket: str) -> list[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))

    def read(self, bucket: str, key: str) -> bytes:
        return self.client.get_object(Bucket=bucket, Key=key)["Body"].read()

    def pending_uploads(self, bucket: str) -> list[str]:
        """Keys of multipart uploads started and neither completed nor aborted."""
        uploads = self.client.list_multipart_uploads(Bucket=bucket).get("Uploads", [])
        return [upload["Key"] for upload in uploads]

    def remove_buckets(self) -> None:
        for bucket in self._buckets:
            for upload in self.client.list_multipart_uploads(Bucket=bucket).get("Uploads", []):
                self.client.abort_multipart_upload(
                    Bucket=bucket, Key=upload["Key"], UploadId=upload["UploadId"]
                )
            for key in self.keys(bucket):
                self.client.delete_object(Bucket=bucket, Key=key)
            self.client.delete_bucket(Bucket=bucket)
        self._buckets.clear()


@contextmanager
def running_s3_server() -> Iterator[S3Server]:
    # Imported here: every test session loads this module, few start the server.
    from moto.server import ThreadedMotoServer

    # werkzeug logs every request at INFO; a test's failure output should not drown in it.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    s3 = S3Server(f"http://{host}:{port}")
    try:
        yield s3
    finally:
        try:
            s3.remove_buckets()
        finally:
            server.stop()


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    with running_s3_server() as server:
        yield server
