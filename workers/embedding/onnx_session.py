"""onnxruntime sessions and run options shared by the local models."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import onnxruntime as ort


def cpu_session(
    path: Path, threads: int | None, *, custom_ops_library: str | None = None
) -> ort.InferenceSession:
    """A CPU session on ``threads`` intra-op threads (None = one per core)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or os.cpu_count() or 1
    options.inter_op_num_threads = 1
    # Idle pool threads sleep instead of spinning: the model shares the cores with other
    # worker processes, Milvus and the database, and spinning threads of one process take
    # the CPU the others need (2 workers of 2 threads each on 2 cores embedded at 0.8 times
    # one worker's speed with spinning, 0.95 times without).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if custom_ops_library:
        options.register_custom_ops_library(custom_ops_library)
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


def shrinking_run_options() -> ort.RunOptions:
    """Run options that hand the CPU arena back after each run.

    onnxruntime's CPU arena keeps every block it ever allocated, and batches of other widths
    fragment it: one 1,440-chunk document grew a process by 1.1 GB that stayed after it.
    Shrinking the arena after each run hands that back (272 MB at the end of the same
    document) for the cost of re-mapping a batch's buffers, a few ms next to the seconds a
    batch of 32 takes (bench/RESULTS.md, section (g))."""
    options = ort.RunOptions()
    options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return options


def padded_runs(
    order: Sequence[int], width: Callable[[int], int], batch_size: int, budget: int
) -> Iterator[list[int]]:
    """``order`` (shortest first) cut into model runs of at most ``batch_size`` texts whose
    padded size (texts x the widest one's ``width``) stays within ``budget``: a run's working
    memory grows with it, so long texts go fewer at a time."""
    run: list[int] = []
    for position in order:
        if run and (len(run) == batch_size or (len(run) + 1) * width(position) > budget):
            yield run
            run = []
        run.append(position)
    if run:
        yield run
