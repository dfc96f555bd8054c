"""FAQService's import calls: import a list or a file, its progress (read and watched), and
the export of its failed rows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
from sluice.v1 import faq_pb2 as pb

from core.errors import Unimplemented
from server.api.deps import ApiDeps
from server.api.rpc import streaming, unary

Ctx = grpc.aio.ServicerContext[Any, Any]


class FaqImportRpcs:
    _deps: ApiDeps

    @unary
    async def ImportFAQEntries(
        self, request: pb.ImportFAQEntriesRequest, context: Ctx
    ) -> pb.ImportFAQEntriesResponse:
        raise Unimplemented("ImportFAQEntries", "issue 15")

    @unary
    async def ImportFAQFile(
        self, request_iterator: AsyncIterator[pb.ImportFAQFileRequest], context: Ctx
    ) -> pb.ImportFAQFileResponse:
        raise Unimplemented("ImportFAQFile", "issue 15")

    @unary
    async def GetFAQImportProgress(
        self, request: pb.GetFAQImportProgressRequest, context: Ctx
    ) -> pb.GetFAQImportProgressResponse:
        raise Unimplemented("GetFAQImportProgress", "issue 15")

    @streaming
    async def WatchFAQImport(
        self, request: pb.WatchFAQImportRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchFAQImportResponse]:
        raise Unimplemented("WatchFAQImport", "issue 15")
        yield pb.WatchFAQImportResponse()

    @streaming
    async def ExportFAQImportFailures(
        self, request: pb.ExportFAQImportFailuresRequest, context: Ctx
    ) -> AsyncIterator[pb.ExportFAQImportFailuresResponse]:
        raise Unimplemented("ExportFAQImportFailures", "issue 15")
        yield pb.ExportFAQImportFailuresResponse()
