"""The worker pools: every spec queue in a pool, the spec's sizes scaled to the machine's
cores, and the settings that override them."""

from __future__ import annotations

import pytest

from storage.queue.base import QueueName
from storage.queue.pools import (
    POOL_QUEUES,
    SPEC_SIZES,
    Pool,
    PoolSpec,
    default_size,
    pool_specs,
    usable_cpus,
)
from workers.settings import Settings


def test_every_queue_is_served_by_a_pool_and_elastic_leaves_documents_to_core() -> None:
    named = {q for pool in Pool if pool is not Pool.ELASTIC for q in POOL_QUEUES[pool]}
    assert named == set(QueueName)
    assert POOL_QUEUES[Pool.ENRICHMENT] == (
        QueueName.MULTIMODAL,
        QueueName.SUMMARY,
        QueueName.QUESTION,
        QueueName.GRAPH,
    )
    assert QueueName.DEFAULT not in POOL_QUEUES[Pool.ELASTIC]
    assert set(POOL_QUEUES[Pool.ELASTIC]) == set(QueueName) - {QueueName.DEFAULT}


@pytest.mark.parametrize(
    ("cpus", "sizes"),
    [
        # core, postprocess, enrichment, wiki, maintenance, elastic
        (1, (1, 1, 2, 1, 1, 1)),
        (2, (2, 1, 3, 2, 1, 2)),
        (8, (8, 2, 12, 8, 4, 6)),  # the spec's machine: the spec's figures
        (16, (16, 4, 24, 16, 8, 12)),
    ],
)
def test_the_spec_sizes_scale_with_the_cores(cpus: int, sizes: tuple[int, ...]) -> None:
    pools = (
        Pool.CORE,
        Pool.POSTPROCESS,
        Pool.ENRICHMENT,
        Pool.WIKI,
        Pool.MAINTENANCE,
        Pool.ELASTIC,
    )
    assert tuple(default_size(pool, cpus) for pool in pools) == sizes
    assert SPEC_SIZES[Pool.CORE] == 8 and SPEC_SIZES[Pool.ENRICHMENT] == 12


def test_settings_default_to_this_machine_and_override_per_pool() -> None:
    defaults = Settings.from_env(env={}).queue
    assert defaults.pool_core == default_size(Pool.CORE, usable_cpus())
    tuned = Settings.from_env(env={"SLUICE_POOL_ENRICHMENT": "5", "SLUICE_POOL_CORE": "1"})
    by_name = {spec.name: spec for spec in tuned.queue.pools()}
    assert by_name["enrichment"] == PoolSpec("enrichment", POOL_QUEUES[Pool.ENRICHMENT], 5)
    assert by_name["core"].size == 1
    assert by_name["wiki"].size == default_size(Pool.WIKI)


def test_a_pool_of_no_workers_is_refused() -> None:
    with pytest.raises(ValueError, match="size must be >= 1, not 0"):
        PoolSpec("core", (QueueName.DEFAULT,), 0)
    assert pool_specs({Pool.CORE: 3})[0].size == 3
