"""Tags of a knowledge base and their links to knowledges (``tags``, ``knowledge_tags``).

Every read and write of a tag by id names the caller's tenant (None: any tenant's, for
admins), so another tenant's tag is never found. A name is unique in its knowledge base
(the table's constraint): a create or rename onto a taken name raises AlreadyExistsError.

A knowledge's links are written inside the transaction that inserts it (``link`` takes that
transaction's session), so a knowledge never exists without the tags it was created with.
They go with the knowledge or the tag when either is deleted (ON DELETE CASCADE).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from storage.db.engine import Database
from storage.db.errors import AlreadyExistsError
from storage.db.models import Knowledge, KnowledgeTag, Tag
from storage.db.sql import affected_rows

TagIdsByKnowledge = dict[str, list[str]]
TagPage = tuple[list[Tag], int]


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


def _tag_scope(tag_id: str, tenant_id: str | None) -> list[ColumnElement[bool]]:
    owned = [] if tenant_id is None else [Tag.tenant_id == tenant_id]
    return [Tag.id == tag_id, *owned]


class TagRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, tenant_id: str, knowledge_base_id: str, name: str, color: str) -> Tag:
        tag = Tag(tenant_id=tenant_id, knowledge_base_id=knowledge_base_id, name=name, color=color)
        try:
            with self._db.session() as session:
                session.add(tag)
        except IntegrityError as exc:
            if self.named(knowledge_base_id, name) is not None:
                raise AlreadyExistsError(f"tag {name!r} already exists") from exc
            raise
        return tag

    def get(self, tag_id: str, tenant_id: str | None) -> Tag | None:
        with self._db.session() as session:
            return session.scalars(select(Tag).where(*_tag_scope(tag_id, tenant_id))).one_or_none()

    def named(self, knowledge_base_id: str, name: str) -> Tag | None:
        query = select(Tag).where(Tag.knowledge_base_id == knowledge_base_id, Tag.name == name)
        with self._db.session() as session:
            return session.scalars(query).one_or_none()

    def list(
        self, knowledge_base_id: str, *, tenant_id: str | None, limit: int, offset: int
    ) -> TagPage:
        """The knowledge base's tags by name, and how many it has."""
        conditions = [Tag.knowledge_base_id == knowledge_base_id]
        if tenant_id is not None:
            conditions.append(Tag.tenant_id == tenant_id)
        query = (
            select(Tag).where(*conditions).order_by(Tag.name, Tag.id).limit(limit).offset(offset)
        )
        with self._db.session() as session:
            total = session.scalar(select(func.count()).select_from(Tag).where(*conditions))
            return list(session.scalars(query)), total or 0

    def rename(self, tag_id: str, tenant_id: str | None, name: str) -> Tag | None:
        """The renamed tag; None when there is no such tag of ``tenant_id``'s."""
        knowledge_base_id = ""
        try:
            with self._db.session() as session:
                query = select(Tag).where(*_tag_scope(tag_id, tenant_id))
                tag = session.scalars(query).one_or_none()
                if tag is None:
                    return None
                knowledge_base_id = tag.knowledge_base_id
                tag.name = name
        except IntegrityError as exc:
            if self.named(knowledge_base_id, name) is not None:
                raise AlreadyExistsError(f"tag {name!r} already exists") from exc
            raise
        return tag

    def delete(self, tag_id: str, tenant_id: str | None) -> int | None:
        """Remove the tag and its links in one transaction; how many knowledges it was
        linked to, or None when there is no such tag of ``tenant_id``'s."""
        with self._db.session() as session:
            query = select(Tag.id).where(*_tag_scope(tag_id, tenant_id)).with_for_update()
            if session.scalar(query) is None:
                return None
            unlinked = affected_rows(
                session.execute(delete(KnowledgeTag).where(KnowledgeTag.tag_id == tag_id))
            )
            session.execute(delete(Tag).where(Tag.id == tag_id))
        return unlinked

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

    def add_links(
        self,
        knowledge_id: str,
        attempt: int,
        statuses: Collection[str],
        tag_ids: Sequence[str],
        *,
        unless_tagged: bool,
    ) -> Sequence[str] | None:
        """Link the knowledge, while it is at round ``attempt`` in one of ``statuses``, to
        those of ``tag_ids`` still tags of its knowledge base and not linked yet; no link is
        removed. One transaction holds the knowledge row and those tags (a tag deleted
        meanwhile is not linked); with ``unless_tagged`` nothing is linked when the knowledge
        has a tag by then (a SetKnowledgeTags came first). Returns the ids linked, None when
        the knowledge is not at that round."""
        with self._db.session() as session:
            knowledge = session.scalars(
                select(Knowledge)
                .where(
                    Knowledge.id == knowledge_id,
                    Knowledge.attempt == attempt,
                    Knowledge.parse_status.in_(list(statuses)),
                )
                .with_for_update()
            ).one_or_none()
            if knowledge is None:
                return None
            wanted = list(dict.fromkeys(tag_ids))
            found = (
                set(
                    session.scalars(
                        select(Tag.id)
                        .where(
                            Tag.knowledge_base_id == knowledge.knowledge_base_id, Tag.id.in_(wanted)
                        )
                        .with_for_update()
                    )
                )
                if wanted
                else set()
            )
            linked = set(
                session.scalars(
                    select(KnowledgeTag.tag_id).where(KnowledgeTag.knowledge_id == knowledge_id)
                )
            )
            if unless_tagged and linked:
                return []
            added = [tag_id for tag_id in wanted if tag_id in found and tag_id not in linked]
            link(session, knowledge_id, added)
        return added

    def tags_of(self, knowledge_ids: Sequence[str], *, tenant_id: str | None) -> TagIdsByKnowledge:
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
