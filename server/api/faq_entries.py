"""FAQService's entry calls: create, get, list, update, delete, enable and disable."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from sluice.v1 import faq_pb2 as pb

from core.faq_entry import AnswerStrategy, FaqEntryContent
from server.api.budget import fitted, response_budget
from server.api.convert import timestamp
from server.api.deps import ApiDeps
from server.api.rpc import unary
from storage.db.models import Chunk

Ctx = grpc.aio.ServicerContext[Any, Any]

_STRATEGY_IN = {pb.ANSWER_STRATEGY_RANDOM: AnswerStrategy.RANDOM}
_STRATEGY_OUT = {AnswerStrategy.RANDOM: pb.ANSWER_STRATEGY_RANDOM}
_ENABLED = {pb.ENABLED_FILTER_ENABLED: True, pb.ENABLED_FILTER_DISABLED: False}


class FaqEntryRpcs:
    _deps: ApiDeps

    @unary
    async def CreateFAQEntry(
        self, request: pb.CreateFAQEntryRequest, context: Ctx
    ) -> pb.CreateFAQEntryResponse:
        identity = await self._deps.auth.identify(context)
        chunk = await asyncio.to_thread(
            self._deps.faq_entries.create,
            identity,
            request.knowledge_base_id,
            content_of(request.content),
            enabled=not request.disabled,
        )
        return pb.CreateFAQEntryResponse(entry=faq_entry(chunk))

    @unary
    async def GetFAQEntry(
        self, request: pb.GetFAQEntryRequest, context: Ctx
    ) -> pb.GetFAQEntryResponse:
        identity = await self._deps.auth.identify(context)
        chunk = await asyncio.to_thread(
            self._deps.faq_entries.get, identity, request.knowledge_base_id, request.id
        )
        return pb.GetFAQEntryResponse(entry=faq_entry(chunk))

    @unary
    async def ListFAQEntries(
        self, request: pb.ListFAQEntriesRequest, context: Ctx
    ) -> pb.ListFAQEntriesResponse:
        identity = await self._deps.auth.identify(context)
        listing = await asyncio.to_thread(
            self._deps.faq_entries.list,
            identity,
            request.knowledge_base_id,
            request.page_size,
            request.page_token,
            tag_id=request.tag_id,
            enabled=_ENABLED.get(request.enabled),
        )
        budget = response_budget(self._deps.settings.api.max_message_bytes)
        items = fitted([faq_entry(c) for c in listing.items], budget)
        return pb.ListFAQEntriesResponse(
            entries=items,
            next_page_token=listing.next_page_token(len(items)),
            total=listing.total,
        )

    @unary
    async def UpdateFAQEntry(
        self, request: pb.UpdateFAQEntryRequest, context: Ctx
    ) -> pb.UpdateFAQEntryResponse:
        identity = await self._deps.auth.identify(context)
        chunk = await asyncio.to_thread(
            self._deps.faq_entries.update,
            identity,
            request.knowledge_base_id,
            request.id,
            content_of(request.content),
        )
        return pb.UpdateFAQEntryResponse(entry=faq_entry(chunk))

    @unary
    async def DeleteFAQEntries(
        self, request: pb.DeleteFAQEntriesRequest, context: Ctx
    ) -> pb.DeleteFAQEntriesResponse:
        identity = await self._deps.auth.identify(context)
        deleted = await asyncio.to_thread(
            self._deps.faq_entries.delete, identity, request.knowledge_base_id, request.ids
        )
        return pb.DeleteFAQEntriesResponse(deleted=deleted)

    @unary
    async def SetFAQEntriesEnabled(
        self, request: pb.SetFAQEntriesEnabledRequest, context: Ctx
    ) -> pb.SetFAQEntriesEnabledResponse:
        identity = await self._deps.auth.identify(context)
        updated = await asyncio.to_thread(
            self._deps.faq_entries.set_enabled,
            identity,
            request.knowledge_base_id,
            request.ids,
            request.enabled,
        )
        return pb.SetFAQEntriesEnabledResponse(updated=updated)


def content_of(message: pb.FAQEntryContent) -> FaqEntryContent:
    """The request's content as written (the service cleans and validates it)."""
    return FaqEntryContent(
        standard_question=message.standard_question,
        similar_questions=tuple(message.similar_questions),
        negative_questions=tuple(message.negative_questions),
        answers=tuple(message.answers),
        answer_strategy=_STRATEGY_IN.get(message.answer_strategy, AnswerStrategy.ALL),
        tag_id=message.tag_id or None,
    )


def faq_entry(chunk: Chunk) -> pb.FAQEntry:
    content = FaqEntryContent.from_metadata(chunk.meta)
    return pb.FAQEntry(
        id=chunk.id,
        knowledge_base_id=chunk.knowledge_base_id,
        knowledge_id=chunk.knowledge_id,
        content=pb.FAQEntryContent(
            standard_question=content.standard_question,
            similar_questions=content.similar_questions,
            negative_questions=content.negative_questions,
            answers=content.answers,
            answer_strategy=_STRATEGY_OUT.get(content.answer_strategy, pb.ANSWER_STRATEGY_ALL),
            tag_id=content.tag_id or "",
        ),
        enabled=chunk.is_enabled,
        # The write layer stores an entry only together with its index rows.
        indexed=True,
        content_hash=chunk.content_hash,
        created_at=timestamp(chunk.created_at),
        updated_at=timestamp(chunk.updated_at),
    )
