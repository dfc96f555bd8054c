"""FAQService's entry calls: create, get, list, update, delete, enable and disable."""

from __future__ import annotations

from typing import Any

import grpc
from sluice.v1 import faq_pb2 as pb

from core.errors import Unimplemented
from server.api.deps import ApiDeps
from server.api.rpc import unary

Ctx = grpc.aio.ServicerContext[Any, Any]


class FaqEntryRpcs:
    _deps: ApiDeps

    @unary
    async def CreateFAQEntry(
        self, request: pb.CreateFAQEntryRequest, context: Ctx
    ) -> pb.CreateFAQEntryResponse:
        raise Unimplemented("CreateFAQEntry", "issue 15")

    @unary
    async def GetFAQEntry(
        self, request: pb.GetFAQEntryRequest, context: Ctx
    ) -> pb.GetFAQEntryResponse:
        raise Unimplemented("GetFAQEntry", "issue 15")

    @unary
    async def ListFAQEntries(
        self, request: pb.ListFAQEntriesRequest, context: Ctx
    ) -> pb.ListFAQEntriesResponse:
        raise Unimplemented("ListFAQEntries", "issue 15")

    @unary
    async def UpdateFAQEntry(
        self, request: pb.UpdateFAQEntryRequest, context: Ctx
    ) -> pb.UpdateFAQEntryResponse:
        raise Unimplemented("UpdateFAQEntry", "issue 15")

    @unary
    async def DeleteFAQEntries(
        self, request: pb.DeleteFAQEntriesRequest, context: Ctx
    ) -> pb.DeleteFAQEntriesResponse:
        raise Unimplemented("DeleteFAQEntries", "issue 15")

    @unary
    async def SetFAQEntriesEnabled(
        self, request: pb.SetFAQEntriesEnabledRequest, context: Ctx
    ) -> pb.SetFAQEntriesEnabledResponse:
        raise Unimplemented("SetFAQEntriesEnabled", "issue 15")
