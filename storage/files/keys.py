"""Object keys and the sanitising of every name and path that reaches storage.

Layout (spec: «Правила организации ключей объектов»):
- originals: ``{tenant_id}/{knowledge_id}/{uuid4hex}{ext}``
- exports, temporary and derived files: ``{tenant_id}/exports/{safe_name}_{unix_ns}{ext}``
"""

from __future__ import annotations

import mimetypes
import re
import time
import unicodedata
import uuid
from pathlib import Path, PurePosixPath

from storage.files.base import UnsafePathError

MAX_NAME_BYTES = 200
# S3's limit on a key's length, in bytes of UTF-8.
MAX_OBJECT_KEY_BYTES = 1024
EXPORTS_DIR = "exports"

# Control, format (bidi overrides, zero-width), surrogate, private-use and unassigned.
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_RESERVED_CHARS = re.compile(r'[<>:"|?*]')
_EXTENSION = re.compile(r"[a-z0-9]{1,16}")
_SEGMENT = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


def safe_file_name(name: str, *, max_bytes: int = MAX_NAME_BYTES) -> str:
    """A file name safe to use as the last part of a key or path.

    Directories are dropped (only the base name survives), lookalike characters are folded
    (NFKC, so a fullwidth solidus is a separator too), invisible and control characters and
    NUL are removed, ".." cannot appear, the extension is lower-cased and the name fits in
    ``max_bytes`` of UTF-8. Never returns an empty string.
    """
    text = unicodedata.normalize("NFKC", name)
    text = re.split(r"[/\\]", text)[-1]
    text = "".join(ch for ch in text if unicodedata.category(ch) not in _DROPPED_CATEGORIES)
    text = _RESERVED_CHARS.sub("_", text)
    text = re.sub(r"\.{2,}", ".", text)
    text = re.sub(r"\s+", " ", text).strip(" .")
    stem, dot, extension = text.rpartition(".")
    if dot and stem and _EXTENSION.fullmatch(extension.lower()):
        suffix = "." + extension.lower()
    else:
        stem, suffix = text, ""
    stem = _truncate_utf8(stem, max_bytes - len(suffix)).rstrip(" .")
    return (stem or "file") + suffix


def file_extension(name: str) -> str:
    """The lower-case extension with its dot (".pdf"), or "" when the name has none."""
    return PurePosixPath(safe_file_name(name)).suffix


def content_type_of(name: str) -> str:
    """The MIME type a file name's extension suggests; application/octet-stream if none."""
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def original_key(tenant_id: str, knowledge_id: str, file_name: str) -> str:
    return (
        f"{_segment(tenant_id)}/{_segment(knowledge_id)}/"
        f"{uuid.uuid4().hex}{file_extension(file_name)}"
    )


def export_key(tenant_id: str, file_name: str) -> str:
    safe = PurePosixPath(safe_file_name(file_name))
    return f"{_segment(tenant_id)}/{EXPORTS_DIR}/{safe.stem}_{time.time_ns()}{safe.suffix}"


def safe_path_under_base(base: Path, relative: str) -> Path:
    """``base / relative`` with symlinks resolved, guaranteed to stay inside ``base``.

    Rejects empty and absolute paths, NUL, backslashes, ".." parts and any path that a
    symlink would take outside ``base``.
    """
    if not relative or "\x00" in relative or "\\" in relative:
        raise UnsafePathError(f"unsafe path {relative!r}")
    candidate = PurePosixPath(relative)
    if candidate.is_absolute() or ".." in candidate.parts:
        raise UnsafePathError(f"unsafe path {relative!r}")
    root = base.resolve()
    target = (root / candidate).resolve()
    if target == root or not target.is_relative_to(root):
        raise UnsafePathError(f"path {relative!r} escapes the storage directory")
    return target


def safe_object_key(key: str) -> str:
    """``key`` itself, once checked to be a plain relative object key (the object-store
    counterpart of ``safe_path_under_base``).

    Object stores have no directories to escape, but a key read back from a path must still
    be one this service could have written: no empty, "." or ".." parts, no leading slash,
    no backslash, control or invisible characters, at most 1024 bytes of UTF-8.
    """
    if not key or len(key.encode("utf-8")) > MAX_OBJECT_KEY_BYTES or "\\" in key:
        raise UnsafePathError(f"unsafe object key {key!r}")
    if any(unicodedata.category(ch) in _DROPPED_CATEGORIES for ch in key):
        raise UnsafePathError(f"unsafe object key {key!r}")
    if any(part in ("", ".", "..") for part in key.split("/")):
        raise UnsafePathError(f"unsafe object key {key!r}")
    return key


def _segment(value: str) -> str:
    """Tenant and knowledge ids become directory names as they are, so they must already
    be plain (uuids, "default"…); the pattern also rules out "." and ".."."""
    if not _SEGMENT.fullmatch(value):
        raise UnsafePathError(f"unsafe key segment {value!r}")
    return value


def _truncate_utf8(text: str, max_bytes: int) -> str:
    return text.encode("utf-8")[: max(max_bytes, 1)].decode("utf-8", "ignore")
