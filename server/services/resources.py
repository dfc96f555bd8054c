"""ResourceService's rules: which stored files a caller may list and grant, for how long,
and what a presented token opens.

Listing and granting are tenant-scoped like every other RPC (a knowledge or resource of
another tenant, or of a knowledge being deleted, is NOT_FOUND). Reading needs no API key:
the grant's token is the credential — issued to an identity that owned the resource, for
that one resource, until it expires or is revoked — which is what lets a grant be handed
on. A token that
opens nothing is PERMISSION_DENIED with ErrorInfo GRANT_UNKNOWN or GRANT_EXPIRED (an expired
one reads as unknown once housekeeping has purged it); a deleted resource is NOT_FOUND.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from sluice.v1 import resource_pb2

from core.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from server.services.identity import Identity
from server.services.lookup import owned_knowledge, visible
from server.services.parts import ResourceParts
from storage.db.models import Knowledge
from storage.db.repositories.resources import KNOWLEDGE_FILES, KNOWLEDGE_ORIGINAL
from storage.files.access_grants import GrantRefusal, GrantRefused
from storage.files.base import FileNotFoundInStorage
from storage.files.resource_catalog import (
    CatalogError,
    DeletedResource,
    Resource,
    is_resource_ref,
)

RESOURCE_TYPE = "sluice.v1.Resource"
GRANT_TYPE = "sluice.v1.AccessGrant"
_REFUSALS = {
    GrantRefusal.UNKNOWN: ("GRANT_UNKNOWN", "no such access grant"),
    GrantRefusal.EXPIRED: ("GRANT_EXPIRED", "the access grant has expired; ask for a new one"),
}


@dataclass(frozen=True)
class NamedResource:
    """A resource as listed: an original is named by its knowledge's file name, anything
    else by the last part of its path."""

    resource: Resource
    file_name: str


@dataclass(frozen=True)
class GrantedResource:
    token: str
    expires_at: datetime
    resource: NamedResource


class ResourceCatalogService:
    def __init__(self, ctx: ResourceParts) -> None:
        self._ctx = ctx

    def list_for_knowledge(self, identity: Identity, knowledge_id: str) -> list[NamedResource]:
        row = owned_knowledge(self._ctx, identity, knowledge_id, "knowledge_id")
        resources = self._ctx.catalog.owned_by(KNOWLEDGE_FILES, [row.id])
        # The original first; the sort is stable, so the images stay oldest first.
        resources.sort(key=lambda r: r.owner_type != KNOWLEDGE_ORIGINAL)
        return [_named(r, row) for r in resources]

    def create_grant(
        self, identity: Identity, request: resource_pb2.CreateAccessGrantRequest
    ) -> GrantedResource:
        ttl_s = self._ttl(request.ttl_seconds)
        target = request.WhichOneof("target")
        if target == "knowledge_id":
            resource = self._original(identity, request.knowledge_id)
        elif target == "resource_ref":
            resource = self._owned(identity, request.resource_ref)
        else:
            raise InvalidArgument.field("target", "give knowledge_id or resource_ref")
        try:
            grant = self._ctx.catalog.create_grant(resource.ref, ttl_s)
        except CatalogError as exc:  # deleted, or even forgotten, since it was read
            raise NotFound(RESOURCE_TYPE, resource.ref) from exc
        named = _named(resource, self._owner(resource))
        return GrantedResource(grant.token, grant.expires_at, named)

    def revoke_grants(
        self, identity: Identity, request: resource_pb2.RevokeAccessGrantRequest
    ) -> int:
        """How many grants were revoked; NOT_FOUND for a token, resource or knowledge the
        caller may not see (the tenant is in the revoking query itself, too)."""
        target = request.WhichOneof("target")
        if target == "token":
            if not request.token:
                raise InvalidArgument.field("token", "is required")
            if not self._ctx.catalog.revoke_grant(request.token, identity.scope):
                raise NotFound(GRANT_TYPE, "token")
            return 1
        if target == "resource_ref":
            resources = [self._owned(identity, request.resource_ref)]
        elif target == "knowledge_id":
            row = owned_knowledge(self._ctx, identity, request.knowledge_id, "knowledge_id")
            resources = self._ctx.catalog.owned_by(KNOWLEDGE_FILES, [row.id])
        else:
            raise InvalidArgument.field("target", "give token, resource_ref or knowledge_id")
        return self._ctx.catalog.revoke_grants(resources, identity.scope)

    def open_grant(self, token: str) -> NamedResource:
        """The resource a token opens right now."""
        if not token:
            raise InvalidArgument.field("token", "is required")
        try:
            resource = self._ctx.catalog.check_grant(token)
        except GrantRefused as exc:
            reason, description = _REFUSALS[exc.reason]
            raise PermissionDenied(reason, "token", description) from exc
        except DeletedResource as exc:
            raise NotFound(RESOURCE_TYPE, exc.ref) from exc
        return _named(resource, self._owner(resource))

    def open_file(self, resource: Resource) -> BinaryIO:
        """The resource's bytes, for the caller to read and close."""
        try:
            return self._ctx.files.open(resource.path)
        except FileNotFoundInStorage as exc:
            raise NotFound(RESOURCE_TYPE, resource.ref) from exc

    def _ttl(self, requested: int) -> int:
        settings = self._ctx.settings
        if requested == 0:
            return settings.storage.grant_default_ttl_s
        if not 0 < requested <= settings.storage.grant_max_ttl_s:
            raise InvalidArgument.field(
                "ttl_seconds",
                f"must be between 1 and {settings.storage.grant_max_ttl_s} seconds "
                f"(0: the default, {settings.storage.grant_default_ttl_s})",
            )
        return requested

    def _original(self, identity: Identity, knowledge_id: str) -> Resource:
        row = owned_knowledge(self._ctx, identity, knowledge_id, "knowledge_id")
        if not is_resource_ref(row.file_path):
            raise FailedPrecondition(
                "NO_CATALOGUED_ORIGINAL",
                row.id,
                "the knowledge has no original file in the resource catalog "
                "(manual text, a web page, or a file stored before the catalog)",
            )
        return self._live(identity, row.file_path)

    def _owned(self, identity: Identity, ref: str) -> Resource:
        if not is_resource_ref(ref):
            raise InvalidArgument.field("resource_ref", "must be a resource://{id} reference")
        return visible(identity, self._live(identity, ref), RESOURCE_TYPE, ref)

    def _live(self, identity: Identity, ref: str) -> Resource:
        try:
            return self._ctx.catalog.get(ref, tenant_id=identity.scope)
        except CatalogError as exc:
            raise NotFound(RESOURCE_TYPE, ref) from exc

    def _owner(self, resource: Resource) -> Knowledge | None:
        """The knowledge an original belongs to (it names the file); None for the rest."""
        if resource.owner_type != KNOWLEDGE_ORIGINAL:
            return None
        return self._ctx.knowledges.get(resource.owner_id, resource.tenant_id)


def _named(resource: Resource, knowledge: Knowledge | None) -> NamedResource:
    if knowledge is not None and resource.owner_type == KNOWLEDGE_ORIGINAL:
        return NamedResource(resource, knowledge.file_name)
    return NamedResource(resource, resource.path.rsplit("/", 1)[-1])
