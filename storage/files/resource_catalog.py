"""Stable references to stored files (spec: «Два слоя-обёртки», resource_catalog).

``register`` records a physical FileService path (``local://…``, ``storage://{backend}/…``)
as ``resource://{uuid}``, with its backend, size, content type and owner. Whoever keeps the
reference instead of the path lets storage move underneath it: ``relocate`` points the
reference at another copy (another path, even another backend) and every reader resolves
the new one. A knowledge's original (``Knowledge.file_path``) and extracted images are
catalogued this way, bound to the knowledge.

Deleting is two steps: ``mark_deleted`` when the owner is deleted (the reference resolves
no more and its grants stop opening it; the row stays as a tombstone, so a dangling
reference reads as "deleted", not "unknown"), and later ``forget`` once its file is gone.
A file stored for an owner that is then never recorded (the owner's insert failed) goes at
once with ``registered``; what even that could not remove, housekeeping finds (``orphans``).

Access grants (``create_grant``/``check_grant``) hand one resource to whoever holds an
expiring token, without an API key; see ``storage.files.access_grants``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import BinaryIO

from core.clock import SYSTEM_CLOCK, Clock
from core.errors import SluiceError
from storage.db.models import StorageResource
from storage.db.repositories.access_grants import AccessGrantRepository
from storage.db.repositories.resources import Position, StorageResourceRepository
from storage.files.access_grants import (
    GrantRefusal,
    GrantRefused,
    IssuedGrant,
    new_token,
    token_digest,
)
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.base import FileNotFoundInStorage

log = logging.getLogger(__name__)

SCHEME = "resource://"
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class CatalogError(SluiceError):
    """A resource reference that cannot be used."""


class UnknownResource(CatalogError):
    """Not a resource reference, or one the catalog does not know (any more)."""

    def __init__(self, ref: str) -> None:
        super().__init__(f"unknown resource {ref!r}")
        self.ref = ref


class DeletedResource(CatalogError):
    """The resource's owner was deleted: it no longer resolves, and no grant opens it."""

    def __init__(self, ref: str) -> None:
        super().__init__(f"resource {ref!r} is deleted")
        self.ref = ref


@dataclass(frozen=True)
class Resource:
    id: str
    tenant_id: str
    backend_id: str
    path: str  # the physical FileService path it points to now
    owner_type: str
    owner_id: str
    size: int
    content_type: str
    created_at: datetime
    deleted_at: datetime | None

    @property
    def ref(self) -> str:
        return resource_ref(self.id)


def resource_ref(resource_id: str) -> str:
    return SCHEME + resource_id


def is_resource_ref(path: str) -> bool:
    return path.startswith(SCHEME)


def resource_id_of(ref: str) -> str:
    """The id inside ``resource://{id}``; UnknownResource when ``ref`` is not one."""
    resource_id = ref.removeprefix(SCHEME)
    if resource_id == ref or not _ID.fullmatch(resource_id):
        raise UnknownResource(ref)
    return resource_id


class ResourceCatalog:
    def __init__(
        self,
        resources: StorageResourceRepository,
        grants: AccessGrantRepository,
        files: BackendScopedFileService,
        *,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        # Judges grant expiry (and stamps it): a test moves it instead of waiting a TTL out.
        self._clock = clock
        self._resources = resources
        self._grants = grants
        self._files = files

    # -- resources ------------------------------------------------------------------------

    def register(
        self,
        path: str,
        *,
        tenant_id: str,
        size: int,
        content_type: str = "",
        owner_type: str = "",
        owner_id: str = "",
    ) -> Resource:
        """Catalogue a stored file (bound to an owner when one is given)."""
        backend_id, _ = self._files.unwrap(path)
        row = self._resources.record(
            tenant_id=tenant_id,
            path=path,
            owner_type=owner_type,
            owner_id=owner_id,
            size=size,
            content_type=content_type,
            backend_id=backend_id,
        )
        return _resource(row)

    @contextmanager
    def registered(
        self,
        path: str,
        *,
        tenant_id: str,
        size: int,
        content_type: str = "",
        owner_type: str = "",
        owner_id: str = "",
    ) -> Iterator[Resource]:
        """``register`` a file just stored, for a block that records the reference where it
        is kept (its owner's row). If registering or the block fails, the file is deleted
        and the record dropped, so nothing stays that nothing refers to; the error goes on.
        Cleanup that fails in turn is logged: a record left behind is an orphan housekeeping
        removes (``orphans``); a file whose record could not even be written stays."""
        try:
            resource = self.register(
                path,
                tenant_id=tenant_id,
                size=size,
                content_type=content_type,
                owner_type=owner_type,
                owner_id=owner_id,
            )
        except BaseException:
            self._remove_unrecorded(path, None)
            raise
        try:
            yield resource
        except BaseException:
            self._remove_unrecorded(path, resource.id)
            raise

    def _remove_unrecorded(self, path: str, resource_id: str | None) -> None:
        """Best effort: the file, then (only once the file is gone) its record."""
        try:
            self._files.delete(path)
            if resource_id is not None:
                self._resources.forget_ids([resource_id])
        except Exception:
            log.exception("could not remove %s after its owner failed to be recorded", path)

    def get(
        self, ref: str, *, include_deleted: bool = False, tenant_id: str | None = None
    ) -> Resource:
        """UnknownResource also for a resource that is not ``tenant_id``'s (when given)."""
        row = self._resources.get(resource_id_of(ref), tenant_id)
        if row is None:
            raise UnknownResource(ref)
        if row.deleted_at is not None and not include_deleted:
            raise DeletedResource(ref)
        return _resource(row)

    def live(self, refs: Iterable[str]) -> dict[str, Resource]:
        """The live resources among ``refs``, by reference, read in one query (how a
        response resolves all the references it returns); malformed, unknown and deleted
        references are absent."""
        ids = set()
        for ref in refs:
            try:
                ids.add(resource_id_of(ref))
            except UnknownResource:
                continue
        rows = self._resources.get_many(sorted(ids))
        return {resource_ref(row.id): _resource(row) for row in rows if row.deleted_at is None}

    def physical_path(self, path_or_ref: str) -> str:
        """Where the file is now: a reference resolved (live ones only), a path as it is
        (files stored before they were catalogued keep their paths)."""
        return self.get(path_or_ref).path if is_resource_ref(path_or_ref) else path_or_ref

    def open(self, path_or_ref: str) -> BinaryIO:
        """A readable stream of the file a reference (or a plain path) names."""
        return self._files.open(self.physical_path(path_or_ref))

    def bind(self, ref: str, owner_type: str, owner_id: str) -> Resource:
        if not self._resources.bind(resource_id_of(ref), owner_type, owner_id):
            self.get(ref)  # raises UnknownResource or DeletedResource
        return self.get(ref)

    def owned_by(
        self,
        owner_types: Sequence[str],
        owner_ids: Sequence[str],
        *,
        include_deleted: bool = False,
    ) -> list[Resource]:
        rows = self._resources.owned_by(owner_types, owner_ids, include_deleted=include_deleted)
        return [_resource(row) for row in rows]

    def mark_deleted(self, owner_types: Sequence[str], owner_ids: Sequence[str]) -> int:
        """Mark every live resource of the owners deleted; returns how many."""
        return self._resources.mark_deleted(owner_types, owner_ids)

    def relocate(self, ref: str, new_path: str) -> Resource:
        """Point the reference at ``new_path``, a copy of the same bytes already stored
        (on any configured backend). The old file is left alone: the caller that moved the
        bytes removes it once nothing reads it."""
        backend_id, _ = self._files.unwrap(new_path)
        if not self._files.exists(new_path):
            raise FileNotFoundInStorage(f"cannot relocate {ref} to {new_path!r}: no such file")
        if not self._resources.relocate(resource_id_of(ref), backend_id, new_path):
            self.get(ref)  # raises UnknownResource or DeletedResource
        return self.get(ref)

    def discard(self, ref: str) -> None:
        """Delete the file and forget the record at once (a file nothing refers to yet)."""
        resource = self.get(ref, include_deleted=True)
        self._files.delete(resource.path)
        self._resources.forget_ids([resource.id])

    def tombstones(
        self,
        deleted_before: datetime,
        limit: int,
        *,
        after: Resource | None = None,
        skip_backends: Sequence[str] = (),
    ) -> list[Resource]:
        """Resources marked deleted at or before ``deleted_before``, oldest first, from just
        after ``after`` (the previous page's last), none on ``skip_backends``."""
        position = None if after is None else _position(after.deleted_at, after.id)
        rows = self._resources.deleted_before(
            deleted_before, limit, after=position, skip_backends=skip_backends
        )
        return [_resource(r) for r in rows]

    def orphans(
        self,
        created_before: datetime,
        limit: int,
        *,
        after: Resource | None = None,
        skip_backends: Sequence[str] = (),
    ) -> list[Resource]:
        """Live resources of knowledges that do not exist, created at or before
        ``created_before`` (long enough ago that no knowledge is still being recorded for
        them); paged like ``tombstones``, by creation."""
        position = None if after is None else _position(after.created_at, after.id)
        rows = self._resources.orphaned_before(
            created_before, limit, after=position, skip_backends=skip_backends
        )
        return [_resource(r) for r in rows]

    def forget(self, resources: Sequence[Resource]) -> int:
        """Drop the records (and grants) of resources whose files are gone."""
        return self._resources.forget_ids([r.id for r in resources])

    # -- access grants --------------------------------------------------------------------

    def create_grant(self, ref: str, ttl_s: int) -> IssuedGrant:
        """A token that opens the live resource ``ref`` for ``ttl_s`` seconds."""
        if ttl_s <= 0:
            raise ValueError(f"a grant's lifetime must be positive, not {ttl_s}")
        resource = self.get(ref)
        token = new_token()
        expires_at = self._clock.now() + timedelta(seconds=ttl_s)
        if not self._grants.add(token_digest(token), resource.id, expires_at):
            raise UnknownResource(ref)  # forgotten since it was read
        return IssuedGrant(token, resource.ref, expires_at)

    def check_grant(self, token: str) -> Resource:
        """The live resource the token opens right now; GrantRefused when it is unknown or
        expired, DeletedResource when its resource was deleted."""
        found = self._grants.find(token_digest(token))
        if found is None:
            raise GrantRefused(GrantRefusal.UNKNOWN)
        grant, row = found
        if grant.expires_at <= self._clock.now():
            raise GrantRefused(GrantRefusal.EXPIRED)
        resource = _resource(row)
        if resource.deleted_at is not None:
            raise DeletedResource(resource.ref)
        return resource

    def revoke_grant(self, token: str, tenant_id: str | None) -> bool:
        """Take back the grant of ``token`` if it opens one of ``tenant_id``'s resources
        (None: any tenant's); False when there is no such grant."""
        return self._grants.revoke(token_digest(token), tenant_id) > 0

    def revoke_grants(self, resources: Sequence[Resource], tenant_id: str | None) -> int:
        """Take back every grant to ``resources`` (those of ``tenant_id``, None: any)."""
        return self._grants.revoke_for_resources([r.id for r in resources], tenant_id)

    def purge_expired_grants(self, now: datetime | None = None) -> int:
        return self._grants.purge_expired(now or self._clock.now())


def _position(moment: datetime | None, resource_id: str) -> Position:
    if moment is None:
        raise ValueError(f"resource {resource_id} has no timestamp to page after")
    return moment, resource_id


def _resource(row: StorageResource) -> Resource:
    return Resource(
        id=row.id,
        tenant_id=row.tenant_id,
        backend_id=row.backend_id,
        path=row.path,
        owner_type=row.owner_type,
        owner_id=row.owner_id,
        size=row.size,
        content_type=row.content_type,
        created_at=row.created_at,
        deleted_at=row.deleted_at,
    )
