"""The allocator policies the server and the workers set at start."""

from __future__ import annotations

import subprocess
import sys

from tests.support.processes import PYTHONPATH

_ARENAS = "from workers.process_memory import limit_malloc_arenas; print(limit_malloc_arenas())"

# Frees an 8 MiB block (which makes glibc's dynamic threshold 8 MiB), then counts how many
# mmapped blocks a 1 MiB allocation adds: 1 when it is handed back on free, 0 from the heap.
_LARGE_BLOCK = """
import ctypes, sys
from workers import process_memory
FIELDS = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in FIELDS.split()]
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.mallinfo2.restype = Info
if sys.argv[1] == "fixed":
    process_memory.hand_memory_back()
libc.free(libc.malloc(8 << 20))
before = libc.mallinfo2().hblks
block = libc.malloc(1 << 20)
print(libc.mallinfo2().hblks - before)
libc.free(block)
"""

_ARROW_POOL = """
import pyarrow
from workers.process_memory import hand_memory_back
hand_memory_back()
print(pyarrow.default_memory_pool().backend_name)
"""


def _run(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", *args],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": PYTHONPATH, **env},
    )
    return done.stdout.strip()


def test_the_arena_cap_is_set_on_glibc() -> None:
    assert _run({}, _ARENAS) == "True"


def test_an_operators_malloc_arena_max_is_left_alone() -> None:
    assert _run({"MALLOC_ARENA_MAX": "4"}, _ARENAS) == "False"


def test_large_blocks_stay_mmapped_after_a_larger_one_was_freed() -> None:
    assert _run({}, _LARGE_BLOCK, "default") == "0"  # glibc alone: from the heap
    assert _run({}, _LARGE_BLOCK, "fixed") == "1"


def test_an_operators_mmap_threshold_is_left_alone() -> None:
    assert _run({"MALLOC_MMAP_THRESHOLD_": str(32 << 20)}, _LARGE_BLOCK, "fixed") == "0"


def test_arrow_buffers_come_from_the_system_allocator() -> None:
    assert _run({}, _ARROW_POOL) == "system"


def test_an_operators_arrow_pool_is_left_alone() -> None:
    assert _run({"ARROW_DEFAULT_MEMORY_POOL": "jemalloc"}, _ARROW_POOL) == "jemalloc"
