"""The wiki a knowledge base's documents build (spec: TypeWikiIngest, «Подстраховка очереди
Wiki», cleanupWikiOnKnowledgeDelete): pages, what each knowledge contributed to each page,
the links between pages, the operations waiting for the debounced wiki task, the tombstones
of deleted knowledges and the per-KB housekeeping trigger time.

``knowledge_id`` columns are deliberately not foreign keys: a page's contribution, a retract
and a tombstone must outlive the knowledge's row, so deleting it reconciles the pages
instead of silently cascading their sources away."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.db.models.base import Base, new_id, utcnow


class WikiPage(Base):
    __tablename__ = "wiki_pages"
    __table_args__ = (UniqueConstraint("knowledge_base_id", "slug"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    # The page's name within its knowledge base, what links between pages point at.
    slug: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(1024), default="")
    # Markdown: the synthesis of every source's contribution, with links.
    content: Mapped[str] = mapped_column(Text, default="")
    # The knowledges of ``wiki_page_sources`` (sorted), kept in the same transaction, so a
    # listing need not join.
    source_knowledge_ids: Mapped[list[str]] = mapped_column(default=list)
    # Incremented by every write of the page.
    version: Mapped[int] = mapped_column(default=1)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class WikiPageSource(Base):
    """What one knowledge contributed to one page: enough to rebuild the page without it."""

    __tablename__ = "wiki_page_sources"

    page_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("wiki_pages.id", ondelete="CASCADE"), primary_key=True
    )
    knowledge_id: Mapped[str] = mapped_column(String(36), primary_key=True, index=True)
    knowledge_base_id: Mapped[str] = mapped_column(String(36), index=True)
    # The knowledge's round whose ingest wrote the contribution.
    attempt: Mapped[int] = mapped_column(default=0)
    # Markdown: what this knowledge says about the page's topic.
    contribution: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class WikiPageLink(Base):
    """A link in a page's Markdown to another page of its knowledge base (by slug; the target
    may not exist yet)."""

    __tablename__ = "wiki_page_links"

    page_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("wiki_pages.id", ondelete="CASCADE"), primary_key=True
    )
    target_slug: Mapped[str] = mapped_column(String(255), primary_key=True)


class WikiPendingOp(Base):
    """An ingest or retract of one knowledge, waiting for the debounced wiki task."""

    __tablename__ = "wiki_pending_ops"
    __table_args__ = (Index(None, "knowledge_base_id", "created_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE")
    )
    knowledge_id: Mapped[str] = mapped_column(String(36), index=True)
    # "ingest" or "retract" (workers.enrichment.wiki.ops.WikiOpKind).
    op: Mapped[str] = mapped_column(String(16))
    # The knowledge's attempt when the op was queued; a newer attempt supersedes it.
    attempt: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The running task that claimed the op (NULL: unclaimed); a claim older than the lease
    # is the claim of a task that died and may be taken over.
    claimed_by: Mapped[str | None] = mapped_column(String(64), default=None)
    claimed_at: Mapped[datetime | None] = mapped_column(default=None)


class WikiTombstone(Base):
    """A deleted knowledge: an ingest already running must not write its contributions."""

    __tablename__ = "wiki_tombstones"

    knowledge_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class WikiKbTrigger(Base):
    """When housekeeping last re-triggered a knowledge base's wiki ingest (at most once per
    stale threshold)."""

    __tablename__ = "wiki_kb_triggers"

    knowledge_base_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE"), primary_key=True
    )
    triggered_at: Mapped[datetime] = mapped_column(default=utcnow)
