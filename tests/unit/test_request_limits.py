"""The size limits of what a request stores on a knowledge (server.services.request_limits)."""

from __future__ import annotations

import pytest

from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.request_limits import (
    MAX_FILE_NAME_BYTES,
    MAX_METADATA_BYTES,
    MAX_METADATA_ENTRIES,
    MAX_METADATA_KEY_BYTES,
    MAX_METADATA_VALUE_BYTES,
    check_file_name,
    check_metadata,
)


def _fields(metadata: dict[str, str]) -> list[str]:
    with pytest.raises(ApiError) as refused, translated():
        check_metadata(metadata, "header.metadata")
    return [v.field for v in refused.value.details[0].field_violations]  # type: ignore[attr-defined]


def test_metadata_within_every_limit_passes() -> None:
    check_metadata({}, "m")
    check_metadata({"k" * MAX_METADATA_KEY_BYTES: "v" * MAX_METADATA_VALUE_BYTES}, "m")
    check_metadata({f"k{i}": "v" * 200 for i in range(MAX_METADATA_ENTRIES)}, "m")


def test_each_metadata_limit_names_its_entry_or_the_whole_map() -> None:
    assert _fields({f"k{i}": "" for i in range(MAX_METADATA_ENTRIES + 1)}) == ["header.metadata"]
    assert _fields({"k" * (MAX_METADATA_KEY_BYTES + 1): "v"}) == [
        f"header.metadata[{'k' * 40 + '…'!r}]"
    ]
    assert _fields({"": "v"}) == ["header.metadata['']"]
    # Bytes, not characters: 2 bytes each in UTF-8.
    assert _fields({"author": "я" * (MAX_METADATA_VALUE_BYTES // 2 + 1)}) == [
        "header.metadata['author']"
    ]
    four_full = {f"k{i}": "v" * MAX_METADATA_VALUE_BYTES for i in range(4)}
    assert sum(len(k) + len(v) for k, v in four_full.items()) > MAX_METADATA_BYTES
    assert _fields(four_full) == ["header.metadata"]


def test_file_names_are_limited_in_utf8_bytes() -> None:
    check_file_name("a" * (MAX_FILE_NAME_BYTES - 4) + ".pdf", "f")
    with pytest.raises(ApiError, match="255 bytes"), translated():
        check_file_name("я" * 126 + ".pdf", "header.file_name")
