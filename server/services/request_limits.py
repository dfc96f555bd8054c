"""The sizes of what a client may name on a knowledge, checked at the edge.

Everything a request stores comes back in every message about the knowledge (Get, each page
of List), so each part is capped: unbounded metadata once made a whole knowledge base
unlistable (four knowledges with 30 MiB of metadata each were over the message limit).
The limits follow what the large object and document stores allow (S3: 2 KiB of user
metadata; GCS: 8 KiB; file systems: 255-byte names): generous for labels, far from a payload.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.errors import InvalidArgument

MAX_METADATA_ENTRIES = 64
MAX_METADATA_KEY_BYTES = 128
MAX_METADATA_VALUE_BYTES = 4 * 1024
# Keys and values together, in UTF-8.
MAX_METADATA_BYTES = 16 * 1024
# As given, in UTF-8 (what most file systems allow for one name).
MAX_FILE_NAME_BYTES = 255
MAX_TAG_ID_CHARS = 64
MAX_KEYWORD_CHARS = 256
MAX_DESCRIPTION_CHARS = 4 * 1024


def check_metadata(metadata: Mapping[str, str], field: str) -> None:
    """INVALID_ARGUMENT (``field`` or ``field[key]``) for metadata over any limit; every
    offending entry is named, its key shortened."""
    if len(metadata) > MAX_METADATA_ENTRIES:
        raise InvalidArgument.field(field, f"at most {MAX_METADATA_ENTRIES} entries are allowed")
    violations: list[tuple[str, str]] = []
    total = 0
    for key, value in sorted(metadata.items()):
        key_bytes, value_bytes = len(key.encode()), len(value.encode())
        total += key_bytes + value_bytes
        name = f"{field}[{_shortened(key)!r}]"
        if not key.strip():
            violations.append((name, "keys must not be empty"))
        elif key_bytes > MAX_METADATA_KEY_BYTES:
            violations.append((name, f"the key is longer than {MAX_METADATA_KEY_BYTES} bytes"))
        if value_bytes > MAX_METADATA_VALUE_BYTES:
            violations.append((name, f"the value is longer than {MAX_METADATA_VALUE_BYTES} bytes"))
    if violations:
        raise InvalidArgument(violations)
    if total > MAX_METADATA_BYTES:
        raise InvalidArgument.field(
            field, f"keys and values are {total} bytes together, over {MAX_METADATA_BYTES}"
        )


def check_file_name(file_name: str, field: str) -> None:
    if len(file_name.encode()) > MAX_FILE_NAME_BYTES:
        raise InvalidArgument.field(field, f"is longer than {MAX_FILE_NAME_BYTES} bytes (UTF-8)")


def check_max_chars(value: str, limit: int, field: str) -> None:
    if len(value) > limit:
        raise InvalidArgument.field(field, f"is longer than {limit} characters")


def _shortened(key: str) -> str:
    """Keys are echoed back in the error's trailer: never a long one whole."""
    return key if len(key) <= 40 else key[:40] + "…"
