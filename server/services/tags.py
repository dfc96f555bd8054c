"""Tag ids on knowledges: the ones a create names, checked before anything is stored, and
the ones a reply shows, read with the row.

Tags are rows of the knowledge base (``tags``, managed by TagService:
server.services.tag_management), and a create or SetKnowledgeTags may only name tags that
exist there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import InvalidArgument
from server.services.request_limits import MAX_TAG_ID_CHARS, check_max_chars
from storage.db.models import Knowledge
from storage.db.repositories.tags import TagRepository

# Tags are labels to filter by; more than this on one document is a client bug.
MAX_TAG_IDS = 64
# An unknown id is echoed back shortened: the error's details travel in a trailer.
_ECHOED_ID_CHARS = 40


def checked_tag_ids(
    tags: TagRepository, knowledge_base_id: str, tag_ids: Sequence[str], field: str
) -> list[str]:
    """The distinct ids, sorted (as replies list them), once each is a tag of the knowledge
    base; INVALID_ARGUMENT on ``field`` naming the unknown ones, or when there are too many
    or one is too long."""
    wanted = sorted(set(tag_ids))
    if len(wanted) > MAX_TAG_IDS:
        raise InvalidArgument.field(field, f"at most {MAX_TAG_IDS} distinct tag ids are allowed")
    for tag_id in wanted:
        check_max_chars(tag_id, MAX_TAG_ID_CHARS, field)
    unknown = set(wanted) - tags.existing(knowledge_base_id, wanted)
    if unknown:
        names = ", ".join(repr(_shortened(tag_id)) for tag_id in sorted(unknown))
        raise InvalidArgument.field(field, f"not tags of this knowledge base: {names}")
    return wanted


@dataclass(frozen=True)
class TaggedKnowledge:
    """A knowledge as a reply shows it: the row and its tag ids."""

    row: Knowledge
    tag_ids: list[str]


def tagged(tags: TagRepository, row: Knowledge) -> TaggedKnowledge:
    """The row with its tag ids."""
    return TaggedKnowledge(row, tags.tags_of([row.id], tenant_id=row.tenant_id)[row.id])


def all_tagged(tags: TagRepository, rows: Sequence[Knowledge]) -> list[TaggedKnowledge]:
    """The rows with their tag ids, read in one query (of their tenant, when they are all
    of one, as the rows of one knowledge base are)."""
    tenants = {row.tenant_id for row in rows}
    tenant_id = tenants.pop() if len(tenants) == 1 else None
    tag_ids = tags.tags_of([row.id for row in rows], tenant_id=tenant_id)
    return [TaggedKnowledge(row, tag_ids[row.id]) for row in rows]


def _shortened(tag_id: str) -> str:
    if len(tag_id) <= _ECHOED_ID_CHARS:
        return tag_id
    return tag_id[:_ECHOED_ID_CHARS] + "…"
