"""Search over the enabled chunks of a tenant's knowledge bases: hybrid by default, or dense
or BM25 alone."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from sluice.v1 import search_pb2

from core.effective_config import embedding_model_of
from core.errors import FailedPrecondition, InvalidArgument
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
        by_model: dict[str, list[KnowledgeBase]] = defaultdict(list)
        tenant_of: dict[str, str] = {}  # knowledge base id → its tenant's id
        for kb_id in dict.fromkeys(request.knowledge_base_ids):
            kb = self._kbs.get_row(identity, kb_id)
            by_model[kb.embedding_model_key].append(kb)
            tenant_of[kb.id] = kb.tenant_id
        # A chunk found through its children is one result: when that leaves fewer than
        # top_k, the search runs again for more candidates.
        fetch = top_k
        while True:
            hits: list[IndexHit] = []
            for model_key, kbs in by_model.items():
                hits += self._search_space(model_key, kbs, identity, query, request, fetch)
            hits.sort(key=lambda h: h.score, reverse=True)
            found = self._results(identity, hits[:fetch], tenant_of)
            if len(found) >= top_k or len(hits) < fetch or fetch >= MAX_CANDIDATES:
                return found[:top_k]
            fetch = min(fetch * 3, MAX_CANDIDATES)

    def _search_space(
        self,
        model_key: str,
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
        if request.mode == search_pb2.SEARCH_MODE_KEYWORD:
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
        if request.mode == search_pb2.SEARCH_MODE_VECTOR:
            return self._ctx.index.search_dense(model_key, vector, **scope)
        return self._ctx.index.search_hybrid(model_key, vector, query, **scope)

    def _results(
        self, identity: Identity, hits: list[IndexHit], tenant_of: dict[str, str]
    ) -> list[Found]:
        titles: dict[str, str] = {}
        for knowledge_id in {h.knowledge_id for h in hits}:
            row = self._ctx.knowledges.get(knowledge_id, identity.scope)
            titles[knowledge_id] = (row.title or row.file_name or "") if row else ""
        chunks = self._ctx.chunks.get_many([h.chunk_id for h in hits], tenant_id=identity.scope)
        parent_ids = [c.parent_chunk_id for c in chunks if c.parent_chunk_id]
        parents = {p.id: p for p in self._ctx.chunks.get_many(parent_ids, tenant_id=identity.scope)}
        chunk_of = {c.id: parents.get(c.parent_chunk_id or "", c) for c in chunks}
        # A hit on a child (of a parent chunk, or of the text chunk holding a picture) is
        # its parent, once, at the rank of its best child.
        results: list[tuple[IndexHit, str, Chunk | None]] = []
        seen: set[str] = set()
        for hit in hits:
            chunk = chunk_of.get(hit.chunk_id)
            returned = chunk.id if chunk is not None else hit.chunk_id
            if returned in seen:
                continue
            seen.add(returned)
            is_parent = chunk is not None and chunk.id != hit.chunk_id
            results.append((hit, chunk.content if is_parent and chunk else hit.content, chunk))
        # The index holds the images' resource references; the client gets URLs to open.
        contents = with_image_urls(
            self._ctx.catalog,
            self._ctx.files,
            [(tenant_of[hit.knowledge_base_id], content) for hit, content, _ in results],
        )
        return [
            Found(
                chunk_id=chunk.id if chunk is not None else hit.chunk_id,
                knowledge_id=hit.knowledge_id,
                knowledge_base_id=hit.knowledge_base_id,
                content=content,
                score=hit.score,
                chunk_index=chunk.chunk_index if chunk is not None else 0,
                knowledge_title=titles.get(hit.knowledge_id, ""),
            )
            for (hit, _, chunk), content in zip(results, contents, strict=True)
        ]
