"""The worker pools (spec: «Топология очередей и пулы Worker»): which queues each pool's
workers take tasks from, in priority order, and how many of them a machine runs by default.

The spec's defaults (task.go) are sized for a machine of ``REFERENCE_CPUS`` cores; a pool's
default here is that figure scaled to this machine's usable cores,

    max(1, ceil(spec_default * cpus / REFERENCE_CPUS))

so a 2-core machine runs a quarter of each pool (core 2, enrichment 3, the others 1-2) and
a 16-core one twice the spec's. The settings (SLUICE_POOL_<NAME>) override it per pool.

The elastic shared pool serves every queue but ``default``: a burst on one of the lighter
queues (a batch of images, a reparse's summaries) borrows its threads without raising that
pool for good, and document processing, the CPU-heavy part, stays at the core pool's size.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from storage.queue.base import QueueName

REFERENCE_CPUS = 8


class Pool(StrEnum):
    CORE = "core"
    POSTPROCESS = "postprocess"
    ENRICHMENT = "enrichment"
    WIKI = "wiki"
    MAINTENANCE = "maintenance"
    ELASTIC = "elastic"


POOL_QUEUES: Mapping[Pool, tuple[QueueName, ...]] = {
    Pool.CORE: (QueueName.DEFAULT,),
    Pool.POSTPROCESS: (QueueName.POSTPROCESS,),
    Pool.ENRICHMENT: (QueueName.MULTIMODAL, QueueName.SUMMARY, QueueName.QUESTION, QueueName.GRAPH),
    Pool.WIKI: (QueueName.WIKI,),
    Pool.MAINTENANCE: (QueueName.LOW,),
    Pool.ELASTIC: tuple(q for q in QueueName if q is not QueueName.DEFAULT),
}

# internal/types/task.go
SPEC_SIZES: Mapping[Pool, int] = {
    Pool.CORE: 8,
    Pool.POSTPROCESS: 2,
    Pool.ENRICHMENT: 12,
    Pool.WIKI: 8,
    Pool.MAINTENANCE: 4,
    Pool.ELASTIC: 6,
}


@dataclass(frozen=True)
class PoolSpec:
    """``size`` workers taking tasks from ``queues``, the first non-empty one first."""

    name: str
    queues: tuple[QueueName, ...]
    size: int

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"pool {self.name}: size must be >= 1, not {self.size}")
        if not self.queues:
            raise ValueError(f"pool {self.name}: serves no queue")


def usable_cpus() -> int:
    """The cores this process may run on (a container's or taskset's limit included)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_size(pool: Pool, cpus: int | None = None) -> int:
    """The spec's default for ``pool`` scaled to ``cpus`` cores (this machine's if None)."""
    count = usable_cpus() if cpus is None else cpus
    return max(1, math.ceil(SPEC_SIZES[pool] * count / REFERENCE_CPUS))


def pool_specs(sizes: Mapping[Pool, int]) -> list[PoolSpec]:
    """Every pool with the size given (its scaled default when left out)."""
    return [
        PoolSpec(pool.value, POOL_QUEUES[pool], sizes.get(pool) or default_size(pool))
        for pool in Pool
    ]
