"""Sweep D: what the resource catalog leaves behind.

- Expired access grants are purged.
- Tombstones (records of deleted knowledges' files) past the retention
  (``deleted_resource_retention_s``) have their files deleted again — a no-op unless the
  delete chain could not — and are forgotten.
- Orphans (live records of knowledges that do not exist, older than the stale threshold:
  a file stored, then its knowledge never recorded or removed without it) have their files
  deleted and are forgotten.

The sweep always moves on: a record whose file is already gone, or sits on a backend this
deployment no longer configures (or at a path no backend holds), is forgotten — logged, as
such a file can only be removed by hand now. A file that will not go keeps its record for the
next round; a backend whose deletes fail ``FAILED_DELETES_PER_BACKEND`` times (an outage) is
left alone for the rest of the round, and the records after its records are read on, so a
store that is down never holds back the others' records.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from storage.db.repositories.housekeeping import HousekeepingRepository
from storage.files.backend_scoped import UnknownBackendError
from storage.files.base import StorageError, UnsafePathError
from storage.files.resource_catalog import Resource
from workers.housekeeping.parts import HousekeepingParts

log = logging.getLogger(__name__)

# Records handled (forgotten, or a delete tried) per kind and round: one round stays short
# however many files were deleted at once.
RECORDS_PER_ROUND = 500
# Failed deletes after which a backend is left alone until the next round.
FAILED_DELETES_PER_BACKEND = 3

# One page of records: (limit, after the previous page's last, backends to leave out).
Fetch = Callable[[int, Resource | None, Sequence[str]], list[Resource]]


def sweep_resources(
    ctx: HousekeepingParts, _repo: HousekeepingRepository, now: datetime
) -> Counter[str]:
    catalog = ctx.catalog
    settings = ctx.settings
    report: Counter[str] = Counter()
    report["grants_purged"] = catalog.purge_expired_grants(now)
    purge = _Purge(ctx)
    retained_until = now - timedelta(seconds=settings.housekeeping.deleted_resource_retention_s)
    report["forgotten"], report["kept"] = purge.run(
        lambda limit, after, skip: catalog.tombstones(
            retained_until, limit, after=after, skip_backends=skip
        )
    )
    stale_before = now - timedelta(seconds=settings.stale_threshold_s)
    report["orphans_removed"], report["orphans_kept"] = purge.run(
        lambda limit, after, skip: catalog.orphans(
            stale_before, limit, after=after, skip_backends=skip
        )
    )
    return +report  # only the counts that are not zero


class _Purge:
    """Deletes the files of records and forgets the records, one round's worth."""

    def __init__(self, ctx: HousekeepingParts) -> None:
        self._ctx = ctx
        self._failed_deletes: Counter[str] = Counter()

    def run(self, fetch: Fetch) -> tuple[int, int]:
        """Page through what ``fetch`` returns; (records forgotten, records kept)."""
        forgotten = kept = 0
        after: Resource | None = None
        while forgotten + kept < RECORDS_PER_ROUND:
            page = fetch(RECORDS_PER_ROUND - forgotten - kept, after, self._given_up())
            if not page:
                break
            gone: list[Resource] = []
            for resource in page:
                if resource.backend_id in self._given_up():
                    continue  # its backend failed earlier in this page
                if self._file_gone(resource):
                    gone.append(resource)
                else:
                    kept += 1
            forgotten += self._ctx.catalog.forget(gone)
            after = page[-1]
        return forgotten, kept

    def _given_up(self) -> list[str]:
        return [b for b, n in self._failed_deletes.items() if n >= FAILED_DELETES_PER_BACKEND]

    def _file_gone(self, resource: Resource) -> bool:
        """Delete the record's file: True once it is gone or can never be reached."""
        try:
            self._ctx.files.delete(resource.path)
        except (UnknownBackendError, UnsafePathError) as exc:
            log.warning(
                "forgetting resource %s: its file %s cannot be reached (%s); if it still "
                "exists, remove it by hand",
                resource.id,
                resource.path,
                exc,
            )
        except StorageError as exc:
            self._failed_deletes[resource.backend_id] += 1
            log.warning("could not delete stored file %s: %s", resource.path, exc)
            return False
        return True
