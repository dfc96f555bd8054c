"""Tags of a knowledge base and their links to knowledges (``tags``, ``knowledge_tags``).

A knowledge's links are written inside the transaction that inserts it (``link`` takes that
transaction's session), so a knowledge never exists without the tags it was created with.
They go with the knowledge or the tag when either is deleted (ON DELETE CASCADE).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from storage.db.engine import Database
from storage.db.models import KnowledgeTag, Tag

TagIdsByKnowledge = dict[str, list[str]]


def link(session: Session, knowledge_id: str, tag_ids: Iterable[str]) -> None:
    """Link the knowledge to each tag (repeats once) in ``session``'s transaction; the
    knowledge must be flushed first."""
    session.add_all(
        KnowledgeTag(knowledge_id=knowledge_id, tag_id=tag_id) for tag_id in dict.fromkeys(tag_ids)
    )


def _tenant_tags(tenant_id: str | None) -> list[ColumnElement[bool]]:
    if tenant_id is None:
        return []
    owned = select(Tag.id).where(Tag.tenant_id == tenant_id)
    return [KnowledgeTag.tag_id.in_(owned)]


class TagRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def existing(self, knowledge_base_id: str, tag_ids: Collection[str]) -> set[str]:
        """The ids among ``tag_ids`` that are tags of the knowledge base (a tag belongs to
        one knowledge base, so to its tenant too)."""
        if not tag_ids:
            return set()
        query = select(Tag.id).where(
            Tag.knowledge_base_id == knowledge_base_id, Tag.id.in_(sorted(set(tag_ids)))
        )
        with self._db.session() as session:
            return set(session.scalars(query))

    def tags_of(
        self, knowledge_ids: Sequence[str], *, tenant_id: str | None
    ) -> TagIdsByKnowledge:
        """Tag ids per knowledge, sorted, in one query (every requested id is a key); only
        ``tenant_id``'s tags (None: any tenant's)."""
        found: TagIdsByKnowledge = {knowledge_id: [] for knowledge_id in knowledge_ids}
        if not found:
            return found
        query = (
            select(KnowledgeTag.knowledge_id, KnowledgeTag.tag_id)
            .where(KnowledgeTag.knowledge_id.in_(list(found)))
            .where(*_tenant_tags(tenant_id))
            .order_by(KnowledgeTag.knowledge_id, KnowledgeTag.tag_id)
        )
        with self._db.session() as session:
            for knowledge_id, tag_id in session.execute(query):
                found[knowledge_id].append(tag_id)
        return found
