"""TagService: the tags of a knowledge base, created, listed, renamed and deleted. A name
is required, at most MAX_TAG_NAME_CHARS, and unique in its knowledge base (ALREADY_EXISTS
naming the tag that holds it); a tag of another tenant is NOT_FOUND like a missing one."""

from __future__ import annotations

from core.errors import AlreadyExists, InvalidArgument, NotFound
from server.services.identity import Identity
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.lookup import visible
from server.services.paging import Listing, requested_page
from server.services.parts import TagParts
from server.services.request_limits import check_max_chars
from storage.db.errors import AlreadyExistsError
from storage.db.models import Tag

TAG = "sluice.v1.Tag"
# The columns' widths.
MAX_TAG_NAME_CHARS = 255
MAX_TAG_COLOR_CHARS = 32


class TagManagementService:
    def __init__(self, ctx: TagParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases

    def create(self, identity: Identity, knowledge_base_id: str, name: str, color: str) -> Tag:
        kb = self._kbs.get_row(identity, knowledge_base_id)
        _check_name(name)
        check_max_chars(color, MAX_TAG_COLOR_CHARS, "color")
        try:
            return self._ctx.tags.create(kb.tenant_id, kb.id, name, color)
        except AlreadyExistsError as exc:
            raise self._taken(kb.id, name) from exc

    def list(
        self, identity: Identity, knowledge_base_id: str, page_size: int, page_token: str
    ) -> Listing[Tag]:
        kb = self._kbs.get_row(identity, knowledge_base_id)
        page = requested_page(page_size, page_token, f"tags:{kb.id}")
        rows, total = self._ctx.tags.list(
            kb.id, tenant_id=identity.scope, limit=page.limit, offset=page.offset
        )
        return Listing(rows, total, page)

    def rename(self, identity: Identity, tag_id: str, name: str) -> Tag:
        tag = self._owned(identity, tag_id)
        _check_name(name)
        try:
            renamed = self._ctx.tags.rename(tag.id, identity.scope, name)
        except AlreadyExistsError as exc:
            raise self._taken(tag.knowledge_base_id, name) from exc
        return visible(identity, renamed, TAG, tag_id)

    def delete(self, identity: Identity, tag_id: str) -> int:
        """Remove the tag and its links; how many knowledges it was linked to."""
        tag = self._owned(identity, tag_id)
        unlinked = self._ctx.tags.delete(tag.id, identity.scope)
        if unlinked is None:  # deleted meanwhile
            raise NotFound(TAG, tag_id)
        return unlinked

    def _owned(self, identity: Identity, tag_id: str) -> Tag:
        if not tag_id:
            raise InvalidArgument.field("tag_id", "is required")
        return visible(identity, self._ctx.tags.get(tag_id, identity.scope), TAG, tag_id)

    def _taken(self, knowledge_base_id: str, name: str) -> AlreadyExists:
        holder = self._ctx.tags.named(knowledge_base_id, name)
        return AlreadyExists(
            TAG,
            holder.id if holder else name,
            f"the knowledge base already has a tag named {name!r}",
        )


def _check_name(name: str) -> None:
    if not name.strip():
        raise InvalidArgument.field("name", "is required")
    check_max_chars(name, MAX_TAG_NAME_CHARS, "name")
