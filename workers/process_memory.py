"""How a Sluice process asks its allocators to hand memory back.

Measured on the lite server, which embeds and runs milvus-lite in its own process
(bench/RESULTS.md, (g)):

- glibc gives each thread that allocates its own malloc arena (up to 8 per core), and freed
  memory stays in the arena it came from. The API and the workers run many threads (gRPC,
  the task executor, milvus-lite, onnxruntime): the lite server grew by 174 MB over 20 small
  documents with the default, and shrank by 92 MB over the same 20 with two arenas.
- glibc raises its mmap threshold to the size of every large block freed (up to 32 MiB), so
  after the first flush the Arrow tables and numpy arrays of later ones come from the heap,
  between long-lived small objects that pin it: milvus-lite alone (Arrow on malloc) held
  93 MiB of free heap after 200 documents. A fixed threshold keeps large blocks in mmap,
  handed back the moment they are freed (18 MiB free after the same 200).
- pyarrow allocates through mimalloc by default, which keeps the pages milvus-lite's flushes
  and compactions free: milvus-lite alone went from 299 to 441 MiB over documents 20 to 200
  with it, from 183 to 244 MiB on the system allocator with the fixed threshold.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

import pyarrow

# mallopt's parameter numbers (malloc.h: M_MMAP_THRESHOLD, M_ARENA_MAX).
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
ARENAS = 2
# glibc's own starting value; setting it explicitly stops glibc from raising it.
MMAP_THRESHOLD_BYTES = 128 << 10


def hand_memory_back() -> None:
    """Set every allocator policy above; call it first thing, before threads start.

    An operator's own MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_ or ARROW_DEFAULT_MEMORY_POOL
    wins."""
    limit_malloc_arenas()
    fix_mmap_threshold()
    use_system_arrow_pool()


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's arenas for the threads started from now on. False where the operator set
    MALLOC_ARENA_MAX or the C library is not glibc."""
    return _mallopt("MALLOC_ARENA_MAX", _M_ARENA_MAX, arenas)


def fix_mmap_threshold(threshold: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Serve blocks from `threshold` bytes up with mmap, whatever was freed before. False
    where the operator set MALLOC_MMAP_THRESHOLD_ or the C library is not glibc."""
    return _mallopt("MALLOC_MMAP_THRESHOLD_", _M_MMAP_THRESHOLD, threshold)


def use_system_arrow_pool() -> bool:
    """Allocate Arrow buffers with malloc instead of mimalloc. False where the operator
    chose a pool with ARROW_DEFAULT_MEMORY_POOL."""
    if "ARROW_DEFAULT_MEMORY_POOL" in os.environ:
        return False
    pyarrow.set_memory_pool(pyarrow.system_memory_pool())
    return True


def _mallopt(variable: str, parameter: int, value: int) -> bool:
    if variable in os.environ:
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    mallopt = getattr(ctypes.CDLL(name), "mallopt", None)
    if mallopt is None:
        return False
    return bool(mallopt(parameter, value))
