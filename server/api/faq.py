"""sluice.v1.FAQService: its entry calls (server.api.faq_entries) and its import calls
(server.api.faq_imports) in one servicer."""

from __future__ import annotations

from sluice.v1 import faq_pb2_grpc as pb_grpc

from server.api.deps import ApiDeps
from server.api.faq_entries import FaqEntryRpcs
from server.api.faq_imports import FaqImportRpcs


class FaqServicer(FaqEntryRpcs, FaqImportRpcs, pb_grpc.FAQServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
