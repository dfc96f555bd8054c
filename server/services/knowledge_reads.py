"""The reads of KnowledgeService: one knowledge, a page of a knowledge base's knowledge,
a knowledge's chunks and its spans, each as the caller may see it."""

from __future__ import annotations

import json

from sluice.v1 import knowledge_pb2 as pb

from core.statuses import EnableStatus
from server.api import convert
from server.services.identity import Identity
from server.services.image_links import with_image_urls
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.lookup import owned_knowledge
from server.services.paging import fitted, next_page_token, requested_page, response_budget
from server.services.parts import KnowledgeReadParts
from server.services.progress import read_spans
from server.services.request_limits import MAX_KEYWORD_CHARS, MAX_TAG_ID_CHARS, check_max_chars
from server.services.tags import knowledge_message, knowledge_messages
from storage.db.models import Knowledge


class KnowledgeReadService:
    def __init__(self, ctx: KnowledgeReadParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases
        self._budget = response_budget(ctx.settings.api.max_message_bytes)

    def owned(self, identity: Identity, knowledge_id: str) -> Knowledge:
        return owned_knowledge(self._ctx, identity, knowledge_id)

    def get(self, identity: Identity, knowledge_id: str) -> pb.Knowledge:
        return knowledge_message(self._ctx.tags, self.owned(identity, knowledge_id))

    def list(
        self, identity: Identity, request: pb.ListKnowledgeRequest
    ) -> pb.ListKnowledgeResponse:
        kb = self._kbs.get_row(identity, request.knowledge_base_id)
        check_max_chars(request.keyword, MAX_KEYWORD_CHARS, "keyword")
        check_max_chars(request.tag_id, MAX_TAG_ID_CHARS, "tag_id")
        check_max_chars(request.file_type, MAX_KEYWORD_CHARS, "file_type")
        statuses = sorted({convert.parse_status_name(s) for s in request.parse_statuses})
        # A token resumes only the query it was issued for.
        query = json.dumps(
            ["knowledges", kb.id, statuses, request.keyword, request.file_type, request.tag_id]
        )
        page = requested_page(request.page_size, request.page_token, query)
        rows, total = self._ctx.knowledges.list(
            identity.scope,
            kb.id,
            statuses=statuses or None,
            keyword=request.keyword or None,
            file_type=request.file_type or None,
            tag_id=request.tag_id or None,
            limit=page.limit,
            offset=page.offset,
        )
        knowledges = fitted(knowledge_messages(self._ctx.tags, rows), self._budget)
        return pb.ListKnowledgeResponse(
            knowledges=knowledges,
            next_page_token=next_page_token(page, len(knowledges), total),
            total=total,
        )

    def chunks(self, identity: Identity, request: pb.ListChunksRequest) -> pb.ListChunksResponse:
        knowledge = self.owned(identity, request.knowledge_id)
        page = requested_page(request.page_size, request.page_token, f"chunks:{knowledge.id}")
        rows, total = self._ctx.chunks.list_by_knowledge(
            knowledge.id, page.limit, page.offset, tenant_id=knowledge.tenant_id
        )
        # Chunks link their images by resource reference: each read gets URLs that work now.
        contents = with_image_urls(
            self._ctx.catalog, self._ctx.files, [(r.tenant_id, r.content) for r in rows]
        )
        enabled = knowledge.enable_status == EnableStatus.ENABLED
        chunks = fitted(
            [
                convert.chunk(r, c, knowledge_enabled=enabled)
                for r, c in zip(rows, contents, strict=True)
            ],
            self._budget,
        )
        return pb.ListChunksResponse(
            chunks=chunks,
            next_page_token=next_page_token(page, len(chunks), total),
            total=total,
        )

    def spans(self, identity: Identity, request: pb.GetSpansRequest) -> pb.GetSpansResponse:
        return read_spans(self._ctx, self.owned(identity, request.knowledge_id), request.attempt)
