"""A multipart/form-data request body (RFC 7578) with text fields and one file.

The standard library builds no multipart bodies, and the transcription endpoint needs one.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping

# How browsers escape names in Content-Disposition (WHATWG); the rest of UTF-8 goes raw.
_ESCAPES = str.maketrans({'"': "%22", "\r": "%0D", "\n": "%0A"})


def multipart_body(
    fields: Mapping[str, str],
    *,
    file_field: str,
    file_name: str,
    data: bytes,
    content_type: str,
) -> tuple[bytes, str]:
    """``(body, Content-Type header value)``; the file comes after the text fields."""
    # Random, so it cannot plausibly occur inside the file's bytes.
    boundary = f"sluice-{secrets.token_hex(16)}"
    parts: list[bytes] = []
    for name, value in fields.items():
        parts.append(_part_header(boundary, f'name="{_escaped(name)}"'))
        parts.append(value.encode("utf-8") + b"\r\n")
    disposition = f'name="{_escaped(file_field)}"; filename="{_escaped(file_name)}"'
    parts.append(_part_header(boundary, disposition, content_type))
    parts.append(data)
    parts.append(f"\r\n--{boundary}--\r\n".encode("ascii"))
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _part_header(boundary: str, disposition: str, content_type: str = "") -> bytes:
    lines = [f"--{boundary}", f"Content-Disposition: form-data; {disposition}"]
    if content_type:
        lines.append(f"Content-Type: {content_type}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")


def _escaped(value: str) -> str:
    return value.translate(_ESCAPES)
