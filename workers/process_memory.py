"""How a Sluice process asks glibc to hold its memory.

glibc gives each thread that allocates its own malloc arena (up to 8 per core), and freed
memory stays in the arena it came from. The API and the workers run many threads (gRPC,
the task executor, milvus-lite, onnxruntime), so freed memory piles up where no other
thread can reuse it: the lite server grew by 174 MB over 20 small documents with the
default, and shrank by 92 MB over the same 20 with two arenas (bench/RESULTS.md, (g)).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

# mallopt's parameter number for the arena cap (malloc.h: M_ARENA_MAX).
_M_ARENA_MAX = -8
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's arenas for the threads started from now on; call it first thing. An
    operator's own MALLOC_ARENA_MAX wins; False where the C library is not glibc."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    mallopt = getattr(ctypes.CDLL(name), "mallopt", None)
    if mallopt is None:
        return False
    return bool(mallopt(_M_ARENA_MAX, arenas))
