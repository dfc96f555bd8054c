"""Removing index sidecars a killed milvus-lite process left half-written.

milvus-lite keeps, beside each data segment, sidecar files with the segment's indexes
(`indexes/<segment>.<field>.<type>.idx` for vectors, `.sidx` for the scalar inverted
indexes), writes them in place with no temporary file, and loads any sidecar that exists
when it opens the collection. A process killed while it wrote one (a flush or compaction
in progress) leaves a truncated file, and from then on every open of the collection fails
("File is too small") — nothing could be indexed or searched again. A sidecar is derived
data: milvus-lite builds a missing one from its segment. So before a process opens a
milvus-lite directory, the sidecars that cannot be read whole are removed.

Only while no process holds the directory (its `LOCK` flock, which milvus-lite takes for
as long as it has the directory open): a sidecar another process is writing is not torn.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
from milvus_lite.index.files import SCALAR_INDEX_FILE_EXT, VECTOR_INDEX_FILE_EXT

log = logging.getLogger(__name__)

_LOCK_FILE = "LOCK"
_NPY_MAGIC = b"\x93NUMPY"


def remove_torn_sidecars(data_dir: str) -> list[Path]:
    """Remove the unreadable index sidecars of the milvus-lite directory ``data_dir``;
    returns them. Does nothing when the directory does not exist or another process
    has it open."""
    root = Path(data_dir)
    lock_path = root / _LOCK_FILE
    if not lock_path.exists():
        return []
    fd = os.open(lock_path, os.O_RDWR)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return []
        try:
            torn = [path for path in _sidecars(root) if not _readable(path)]
            for path in torn:
                log.warning("removing the torn index sidecar %s (milvus-lite rebuilds it)", path)
                path.unlink()
            return torn
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _sidecars(root: Path) -> Iterator[Path]:
    for index_dir in root.glob("collections/*/partitions/*/indexes"):
        for path in index_dir.iterdir():
            if path.name.endswith((VECTOR_INDEX_FILE_EXT, SCALAR_INDEX_FILE_EXT)):
                yield path


def _readable(path: Path) -> bool:
    """Whether the sidecar is whole: a scalar index is an Arrow IPC file (its footer is
    written last), a FLAT vector index an .npy array (its header gives its size); any
    other format is only known torn when empty."""
    try:
        if path.stat().st_size == 0:
            return False
        if path.name.endswith(SCALAR_INDEX_FILE_EXT):
            with pa.memory_map(str(path), "r") as source:
                pa.ipc.open_file(source).read_all()
            return True
        with path.open("rb") as file:
            if file.read(len(_NPY_MAGIC)) != _NPY_MAGIC:
                return True
            file.seek(0)
            version = np.lib.format.read_magic(file)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(file)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(file)
            else:
                return True
            expected = file.tell() + int(np.prod(shape)) * np.dtype(dtype).itemsize
        return path.stat().st_size >= expected
    except (OSError, ValueError, pa.ArrowInvalid):
        return False
