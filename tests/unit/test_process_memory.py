"""The glibc arena cap the server and the workers set at start."""

from __future__ import annotations

import subprocess
import sys

from tests.support.processes import PYTHONPATH

_PROBE = (
    "from workers.process_memory import limit_malloc_arenas; print(limit_malloc_arenas())"
)


def _probe(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True, text=True, check=True, env={"PYTHONPATH": PYTHONPATH, **env},
    )
    return done.stdout.strip()


def test_the_arena_cap_is_set_on_glibc() -> None:
    assert _probe({}) == "True"


def test_an_operators_malloc_arena_max_is_left_alone() -> None:
    assert _probe({"MALLOC_ARENA_MAX": "4"}) == "False"
