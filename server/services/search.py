"""Search over the enabled chunks of a tenant's knowledge bases: hybrid by default, or dense
or BM25 alone.

A knowledge base indexes one side, both or neither (config.indexing, core.index_sides).
Hybrid searches each named knowledge base on what it indexes (both sides fused, or the one
it has); an explicit vector or keyword search needs every named knowledge base to index
that side. A knowledge base that answers neither the request's mode nor any is refused
(FAILED_PRECONDITION naming it) rather than left out: a result silently missing a whole
knowledge base reads as "nothing there"."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sluice.v1 import search_pb2

from core.effective_config import embedding_model_of, resolve
from core.errors import FailedPrecondition, InvalidArgument
from core.faq_text import normalize_faq_text
from core.index_sides import IndexSides, index_sides
from server.services.faq_search import FaqMatch, faq_match, is_faq, refused
from server.services.graph_expansion import (
    Expansion,
    GraphVia,
    related_to_hits,
    requested_expansion,
)
from server.services.identity import Identity
from server.services.image_links import with_image_urls
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.model_endpoints import REFUSED_REASON
from server.services.parts import SearchParts
from storage.db.models import Chunk, KnowledgeBase
from storage.index.records import IndexHit
from workers.embedding.base import EmbeddingEndpointRefused

DEFAULT_TOP_K = 10
MAX_TOP_K = 100
# The most index hits one search reads to fill top_k results.
MAX_CANDIDATES = 3 * MAX_TOP_K
# A question about a child chunk of parent/child chunking is the deepest chunk there is.
MAX_ANCESTRY = 2


@dataclass(frozen=True)
class Found:
    """One result, best first: ``content`` with its image links made URLs."""

    chunk_id: str
    knowledge_id: str
    knowledge_base_id: str
    content: str
    score: float
    chunk_index: int
    knowledge_title: str
    # The child that matched in its stead (an image's OCR text or caption, a question
    # generated for the chunk, a child chunk of parent/child chunking), if one did.
    matched_chunk_id: str = ""
    matched_chunk_type: str = ""
    matched_content: str = ""
    # Set on a result graph expansion added after the hits: how it was reached.
    graph: GraphVia | None = None
    # Set on an entry of an FAQ knowledge base (server.services.faq_search).
    faq: FaqMatch | None = None


@dataclass(frozen=True)
class _Result:
    """A hit as returned: the chunk it stands for (its own, or the parent of the child that
    matched) and what that chunk says."""

    hit: IndexHit
    chunk_id: str
    content: str
    chunk_index: int
    matched: Chunk | None
    faq: FaqMatch | None = None


class SearchService:
    def __init__(self, ctx: SearchParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases

    def search(self, identity: Identity, request: search_pb2.SearchRequest) -> list[Found]:
        """The best ``top_k`` results (a response may carry fewer: see server.api.budget)."""
        query = request.query.strip()
        if not query:
            raise InvalidArgument.field("query", "is required")
        if not request.knowledge_base_ids:
            raise InvalidArgument.field("knowledge_base_ids", "name at least one knowledge base")
        if request.top_k < 0 or request.top_k > MAX_TOP_K:
            raise InvalidArgument.field("top_k", f"must be between 1 and {MAX_TOP_K}")
        if request.mode not in search_pb2.SearchMode.values():
            raise InvalidArgument.field("mode", f"unknown search mode {request.mode}")
        top_k = request.top_k or DEFAULT_TOP_K
        expansion = requested_expansion(request)
        # (collection key, the mode it is searched in) → its knowledge bases
        by_model: dict[tuple[str, int], list[KnowledgeBase]] = defaultdict(list)
        tenant_of: dict[str, str] = {}  # knowledge base id → its tenant's id
        for kb_id in dict.fromkeys(request.knowledge_base_ids):
            kb = self._kbs.get_row(identity, kb_id)
            mode = _mode_for(kb, request.mode)
            by_model[kb.embedding_model_key, mode].append(kb)
            tenant_of[kb.id] = kb.tenant_id
        # A chunk found through its children is one result: when that leaves fewer than
        # top_k, the search runs again for more candidates.
        fetch = top_k
        while True:
            hits: list[IndexHit] = []
            for (model_key, mode), kbs in by_model.items():
                hits += self._search_space(model_key, mode, kbs, identity, query, request, fetch)
            hits.sort(key=lambda h: h.score, reverse=True)
            found = self._as_parents(identity, hits[:fetch], top_k, query)
            if len(found) >= top_k or len(hits) < fetch or fetch >= MAX_CANDIDATES:
                results = self._results(identity, found, tenant_of)
                if expansion is not None:
                    results += self._expanded(identity, expansion, request, found, tenant_of)
                return results
            fetch = min(fetch * 3, MAX_CANDIDATES)

    def _search_space(
        self,
        model_key: str,
        mode: int,
        kbs: list[KnowledgeBase],
        identity: Identity,
        query: str,
        request: search_pb2.SearchRequest,
        top_k: int,
    ) -> list[IndexHit]:
        # The caller's own tenant, not the rows': the index filters by tenant by itself.
        tenants = (
            sorted({kb.tenant_id for kb in kbs}) if identity.is_admin else [identity.tenant_id]
        )
        kb_ids = [kb.id for kb in kbs]
        scope: dict[str, Any] = {
            "tenant_ids": tenants,
            "knowledge_base_ids": kb_ids,
            "knowledge_ids": list(request.knowledge_ids) or None,
            # Rows of a knowledge still indexing (or whose round did not finish) are in the
            # index already, but only a knowledge that is enabled may be found.
            "excluded_knowledge_ids": self._ctx.knowledges.unsearchable_ids(kb_ids),
            "top_k": top_k,
        }
        if mode == search_pb2.SEARCH_MODE_KEYWORD:
            return self._ctx.index.search_keyword(model_key, query, **scope)
        embedder = self._ctx.embedders.get(embedding_model_of(kbs[0].config or {}))
        try:
            vector = embedder.embed_query(query)
        except EmbeddingEndpointRefused as exc:
            # Refused before anything was sent: the knowledge base's configuration must change.
            raise FailedPrecondition(
                REFUSED_REASON,
                "config.embedding.base_url",
                f"knowledge base {kbs[0].id}: {exc}",
            ) from exc
        if mode == search_pb2.SEARCH_MODE_VECTOR:
            return self._ctx.index.search_dense(model_key, vector, **scope)
        return self._ctx.index.search_hybrid(model_key, vector, query, **scope)

    def _as_parents(
        self, identity: Identity, hits: list[IndexHit], top_k: int, query: str
    ) -> list[_Result]:
        """The best ``top_k`` chunks: a child's hit stands for its parent (the text chunk
        that shows an image its OCR text or caption is of, or a generated question is
        about, or the parent chunk of parent/child chunking — for a question about a child
        chunk, that child's parent), and a chunk found more than once counts once, at its
        best. An FAQ entry is a result of its own, unless disabled or its negative
        questions refuse ``query`` (server.services.faq_search)."""
        chunks = {
            c.id: c
            for c in self._ctx.chunks.get_many([h.chunk_id for h in hits], tenant_id=identity.scope)
        }
        ancestors = self._ancestors(identity, chunks.values())
        results: dict[str, _Result] = {}
        normalised_query = normalize_faq_text(query)
        for hit in hits:
            chunk = chunks.get(hit.chunk_id)
            top = _topmost(chunk, ancestors) if chunk is not None else None
            if chunk is not None and is_faq(chunk):
                if refused(chunk, normalised_query):
                    continue
                entry = faq_match(chunk)
                result = _Result(hit, chunk.id, chunk.content, chunk.chunk_index, None, entry)
            elif chunk is not None and top is not None:
                result = _Result(hit, top.id, top.content, top.chunk_index, chunk)
            else:
                index = chunk.chunk_index if chunk is not None else 0
                result = _Result(hit, hit.chunk_id, hit.content, index, None)
            results.setdefault(result.chunk_id, result)
            if len(results) == top_k:
                break
        return list(results.values())

    def _ancestors(self, identity: Identity, chunks: Iterable[Chunk]) -> dict[str, Chunk]:
        """The parents of ``chunks`` and theirs, by id, up to MAX_ANCESTRY levels."""
        found: dict[str, Chunk] = {}
        wanted = {c.parent_chunk_id for c in chunks if c.parent_chunk_id}
        for _ in range(MAX_ANCESTRY):
            if not wanted:
                break
            rows = self._ctx.chunks.get_many(sorted(wanted), tenant_id=identity.scope)
            found.update((c.id, c) for c in rows)
            wanted = {c.parent_chunk_id for c in rows if c.parent_chunk_id} - found.keys()
        return found

    def _expanded(
        self,
        identity: Identity,
        expansion: Expansion,
        request: search_pb2.SearchRequest,
        found: list[_Result],
        tenant_of: dict[str, str],
    ) -> list[Found]:
        """The results graph expansion adds after ``found`` (server.services.graph_expansion)."""
        hit_ids = [r.chunk_id for r in found] + [r.matched.id for r in found if r.matched]
        related = related_to_hits(
            self._ctx,
            identity,
            expansion,
            knowledge_base_ids=list(tenant_of),
            knowledge_ids=list(request.knowledge_ids),
            hit_chunk_ids=list(dict.fromkeys(hit_ids)),
            lowest_hit_score=min((r.hit.score for r in found), default=0.0),
            stands_for=lambda chunks: self._standing_for(identity, chunks),
        )
        rows = self._ctx.knowledges.get_many(
            sorted({r.chunk.knowledge_id for r in related}), tenant_id=identity.scope
        )
        titles = {row.id: row.title or row.file_name or "" for row in rows}
        contents = with_image_urls(
            self._ctx.catalog,
            self._ctx.files,
            [(tenant_of[r.chunk.knowledge_base_id], r.chunk.content) for r in related],
        )
        return [
            Found(
                chunk_id=r.chunk.id,
                knowledge_id=r.chunk.knowledge_id,
                knowledge_base_id=r.chunk.knowledge_base_id,
                content=content,
                score=r.score,
                chunk_index=r.chunk.chunk_index,
                knowledge_title=titles.get(r.chunk.knowledge_id, ""),
                graph=r.via,
            )
            for r, content in zip(related, contents, strict=True)
        ]

    def _standing_for(self, identity: Identity, chunks: Sequence[Chunk]) -> dict[str, Chunk]:
        """Each chunk's id → the chunk it is a result as (its topmost parent, or itself)."""
        ancestors = self._ancestors(identity, chunks)
        return {c.id: _topmost(c, ancestors) or c for c in chunks}

    def _results(
        self, identity: Identity, found: list[_Result], tenant_of: dict[str, str]
    ) -> list[Found]:
        titles: dict[str, str] = {}
        for knowledge_id in {r.hit.knowledge_id for r in found}:
            row = self._ctx.knowledges.get(knowledge_id, identity.scope)
            titles[knowledge_id] = (row.title or row.file_name or "") if row else ""
        # The index holds the images' resource references; the client gets URLs to open.
        contents = with_image_urls(
            self._ctx.catalog,
            self._ctx.files,
            [(tenant_of[r.hit.knowledge_base_id], r.content) for r in found],
        )
        return [
            Found(
                chunk_id=r.chunk_id,
                knowledge_id=r.hit.knowledge_id,
                knowledge_base_id=r.hit.knowledge_base_id,
                content=content,
                score=r.hit.score,
                chunk_index=r.chunk_index,
                knowledge_title=titles.get(r.hit.knowledge_id, ""),
                matched_chunk_id=r.matched.id if r.matched is not None else "",
                matched_chunk_type=r.matched.chunk_type if r.matched is not None else "",
                matched_content=r.matched.content if r.matched is not None else "",
                faq=r.faq,
            )
            for r, content in zip(found, contents, strict=True)
        ]


def _mode_for(kb: KnowledgeBase, requested: int) -> int:
    """The mode ``kb`` is searched in for a request in ``requested`` (unspecified: hybrid);
    FAILED_PRECONDITION when it does not index what that mode needs."""
    sides = index_sides(kb.embedding_model_key, resolve(kb.config or {}, None))
    if not sides.any:
        raise FailedPrecondition(
            "NOTHING_INDEXED",
            kb.id,
            f"knowledge base {kb.id} indexes neither vectors nor keywords "
            "(config.indexing.vector_enabled and keyword_enabled are off): nothing to search",
        )
    if requested == search_pb2.SEARCH_MODE_VECTOR and not sides.dense:
        raise _not_indexed(kb, "vector", "vector_enabled", "keyword")
    if requested == search_pb2.SEARCH_MODE_KEYWORD and not sides.keyword:
        raise _not_indexed(kb, "keyword", "keyword_enabled", "vector")
    if requested in (search_pb2.SEARCH_MODE_VECTOR, search_pb2.SEARCH_MODE_KEYWORD):
        return requested
    return _hybrid_mode(sides)


def _hybrid_mode(sides: IndexSides) -> int:
    if sides.dense and sides.keyword:
        return search_pb2.SEARCH_MODE_HYBRID
    return search_pb2.SEARCH_MODE_VECTOR if sides.dense else search_pb2.SEARCH_MODE_KEYWORD


def _not_indexed(kb: KnowledgeBase, mode: str, switch: str, other: str) -> FailedPrecondition:
    return FailedPrecondition(
        "SEARCH_MODE_NOT_INDEXED",
        kb.id,
        f"knowledge base {kb.id} has no {mode} index (config.indexing.{switch} is off); "
        f"search it in {other} or hybrid mode",
    )


def _topmost(chunk: Chunk, ancestors: dict[str, Chunk]) -> Chunk | None:
    """The chunk ``chunk`` stands for: its parent's parent, else its parent, else None (it
    stands for itself)."""
    top = None
    current = chunk
    for _ in range(MAX_ANCESTRY):
        parent = ancestors.get(current.parent_chunk_id or "")
        if parent is None:
            break
        top = current = parent
    return top
