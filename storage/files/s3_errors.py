"""botocore's exceptions, told apart and turned into the FileService errors."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from botocore.exceptions import BotoCoreError, ClientError

from storage.files.base import FileNotFoundInStorage, StorageError

# HEAD answers a bare status code (no body to carry an error code); GET and copies say NoSuchKey.
_NOT_FOUND_CODES = frozenset({"404", "NoSuchKey", "NotFound"})


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def is_not_found(exc: ClientError) -> bool:
    return error_code(exc) in _NOT_FOUND_CODES


@contextmanager
def s3_errors(action: str, path: str) -> Iterator[None]:
    """Map what boto3 raises inside the block: a missing object → FileNotFoundInStorage,
    anything else (a missing bucket, access denied, the endpoint unreachable…) →
    StorageError naming the action, the path and the provider's error code."""
    try:
        yield
    except ClientError as exc:
        if is_not_found(exc):
            raise FileNotFoundInStorage(path) from exc
        message = exc.response.get("Error", {}).get("Message", "")
        raise StorageError(f"{action} {path} failed: {error_code(exc)} {message}".rstrip()) from exc
    except BotoCoreError as exc:
        raise StorageError(f"{action} {path} failed: {exc}") from exc
