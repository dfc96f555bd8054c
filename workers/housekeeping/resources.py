"""Sweep D: what the resource catalog leaves behind. Expired access grants are purged.
Records of deleted knowledges' files, once past the retention
(``deleted_resource_retention_s``), have their files deleted again — a no-op unless the
delete chain could not — and are forgotten; a file that still will not go keeps its record
for the next round.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

from storage.db.repositories.access_grants import AccessGrantRepository
from storage.db.repositories.housekeeping import HousekeepingRepository
from storage.db.repositories.resources import StorageResourceRepository
from storage.files.resource_catalog import ResourceCatalog
from workers.context import WorkerContext
from workers.lifecycle.files import delete_files

# Bounded so one round stays short however many files were deleted at once.
TOMBSTONES_PER_ROUND = 500


def sweep_resources(
    ctx: WorkerContext, _repo: HousekeepingRepository, now: datetime
) -> Counter[str]:
    # On the round's database handle (ctx.db), like the other sweeps' repository.
    catalog = ResourceCatalog(
        StorageResourceRepository(ctx.db), AccessGrantRepository(ctx.db), ctx.files
    )
    report: Counter[str] = Counter()
    report["grants_purged"] = catalog.purge_expired_grants(now)
    cutoff = now - timedelta(seconds=ctx.settings.deleted_resource_retention_s)
    tombstones = catalog.tombstones(cutoff, TOMBSTONES_PER_ROUND)
    gone = set(delete_files(ctx, [t.path for t in tombstones]))
    report["forgotten"] = catalog.forget([t for t in tombstones if t.path in gone])
    report["kept"] = len(tombstones) - report["forgotten"]
    return +report  # only the counts that are not zero
