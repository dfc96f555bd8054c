"""What `sluice ingest DIR` uploads: the folder's files (recursive, `--include` /
`--exclude` globs), the types the server imports, and the state file that lets a rerun
skip what an earlier run already ingested."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

# The server's import gate (core/extensions.py SUPPORTED_IMPORT_EXTENSIONS, which the
# docreader reads) has no RPC to ask, so the client keeps the same list; a test keeps the
# two equal.
SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(
    {
        *("pdf", "txt", "docx", "doc", "epub", "html", "htm", "mhtml", "md", "markdown"),
        *("xmind", "png", "jpg", "jpeg", "gif", "csv", "xlsx", "xls", "pptx", "ppt", "json"),
        *("mp3", "wav", "m4a", "flac", "ogg"),
    }
)

_HASH_BLOCK = 1 << 20


@dataclass(frozen=True)
class Candidate:
    path: Path
    relative: str  # POSIX, relative to the folder: the name in tables and the state file


def _matches(relative: str, patterns: Iterable[str]) -> bool:
    # fnmatch's `*` crosses `/`, so `*.md` matches at any depth; the base name is tried
    # too, so `notes.md` or `draft*` need no leading `*/`.
    name = relative.rpartition("/")[2]
    return any(fnmatch(relative, p) or fnmatch(name, p) for p in patterns)


def walk(folder: Path, include: list[str], exclude: list[str]) -> list[Candidate]:
    """The folder's files that pass the globs, sorted by relative path (hidden files and
    folders, such as `.git`, are left out)."""
    found: list[Candidate] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.startswith("."):
                continue
            path = Path(root, name)
            relative = path.relative_to(folder).as_posix()
            if include and not _matches(relative, include):
                continue
            if not _matches(relative, exclude):
                found.append(Candidate(path, relative))
    return sorted(found, key=lambda candidate: candidate.relative)


def unsupported_reason(path: Path) -> str | None:
    extension = path.suffix.lower().lstrip(".")
    if extension in SUPPORTED_EXTENSIONS:
        return None
    return f"unsupported type .{extension}" if extension else "unsupported type (no extension)"


def md5_of(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as stream:
        while block := stream.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _cache_root() -> Path:
    configured = os.environ.get("XDG_CACHE_HOME")
    return Path(configured) if configured else Path.home() / ".cache"


class IngestState:
    """The files an ingest of this folder into this knowledge base (on this server) has
    finished: relative path → MD5 and knowledge id, in
    `$XDG_CACHE_HOME/sluice/ingest/<key>.json`. Saved after every file, so an interrupted
    run resumes too; a file whose content changed is uploaded again."""

    def __init__(self, target: str, kb_id: str, folder: Path) -> None:
        key = hashlib.sha256(f"{target}\n{kb_id}\n{folder.resolve()}".encode()).hexdigest()
        self.path = _cache_root() / "sluice" / "ingest" / f"{key[:32]}.json"
        self._lock = threading.Lock()
        try:
            self._done: dict[str, dict[str, str]] = json.loads(self.path.read_text())["files"]
        except (OSError, ValueError, KeyError, TypeError):
            self._done = {}  # no earlier run, or a state file not of ours: start afresh

    def ingested(self, candidate: Candidate, md5: str) -> str | None:
        """The knowledge id an earlier run left this exact content as, if any."""
        entry = self._done.get(candidate.relative)
        return entry["knowledge_id"] if entry and entry.get("md5") == md5 else None

    def record(self, candidate: Candidate, md5: str, knowledge_id: str) -> None:
        with self._lock:
            self._done[candidate.relative] = {"md5": md5, "knowledge_id": knowledge_id}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_suffix(".tmp")
            partial.write_text(json.dumps({"files": self._done}, indent=1))
            partial.replace(self.path)
