"""FAQService's import calls: import a list or a file, its progress (read and watched), and
the export of its failed rows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from sluice.v1 import faq_pb2 as pb
from sluice.v1 import knowledge_base_pb2

from core.errors import InvalidArgument
from core.faq_import_rows import INLINE_MAX_ROWS, ImportRow
from core.statuses import JobStatus
from server.api import convert
from server.api.deps import ApiDeps
from server.api.faq_import_file import first_header, received_file
from server.api.rpc import streaming, unary
from server.services.faq_failures_csv import failure_csv
from server.services.faq_files.readers import read_rows
from server.services.faq_imports import ImportOptions
from server.services.identity import Identity
from server.services.job_watch import watch_job
from storage.db.models import FaqImportJob

Ctx = grpc.aio.ServicerContext[Any, Any]

_MODES = {pb.FAQ_IMPORT_MODE_REPLACE: "replace"}
_STRATEGIES = {pb.ANSWER_STRATEGY_ALL: "all", pb.ANSWER_STRATEGY_RANDOM: "random"}


class FaqImportRpcs:
    _deps: ApiDeps

    @unary
    async def ImportFAQEntries(
        self, request: pb.ImportFAQEntriesRequest, context: Ctx
    ) -> pb.ImportFAQEntriesResponse:
        identity = await self._deps.auth.identify(context)
        # The knowledge base first: another tenant's is NOT_FOUND whatever else is wrong.
        options = await self._import_options(identity, request.options, "options")
        if not request.entries:
            raise InvalidArgument.field("entries", "at least one entry is required")
        if len(request.entries) > INLINE_MAX_ROWS:
            raise InvalidArgument.field(
                "entries",
                f"{len(request.entries)} entries: at most {INLINE_MAX_ROWS} are imported from a "
                "list; use ImportFAQFile for more",
            )
        rows = [_listed_row(number, entry) for number, entry in enumerate(request.entries, 1)]
        job = await asyncio.to_thread(self._deps.faq_imports.start, options, rows)
        return pb.ImportFAQEntriesResponse(progress=progress(job))

    @unary
    async def ImportFAQFile(
        self, request_iterator: AsyncIterator[pb.ImportFAQFileRequest], context: Ctx
    ) -> pb.ImportFAQFileResponse:
        identity = await self._deps.auth.identify(context)
        header = await first_header(request_iterator)
        options = await self._import_options(identity, header.options, "header.options")
        async with received_file(
            header,
            request_iterator,
            context,
            max_bytes=self._deps.settings.api.max_upload_bytes,
        ) as received:
            rows = read_rows(received.path, received.file_format)
            job = await asyncio.to_thread(self._deps.faq_imports.start, options, rows)
        return pb.ImportFAQFileResponse(progress=progress(job))

    @unary
    async def GetFAQImportProgress(
        self, request: pb.GetFAQImportProgressRequest, context: Ctx
    ) -> pb.GetFAQImportProgressResponse:
        identity = await self._deps.auth.identify(context)
        job = await asyncio.to_thread(self._deps.faq_imports.job, identity, request.job_id)
        return pb.GetFAQImportProgressResponse(progress=progress(job))

    @streaming
    async def WatchFAQImport(
        self, request: pb.WatchFAQImportRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchFAQImportResponse]:
        identity = await self._deps.auth.identify(context)
        job = await asyncio.to_thread(self._deps.faq_imports.job, identity, request.job_id)
        service = self._deps.faq_imports

        async def read() -> pb.FAQImportProgress:
            return progress(await asyncio.to_thread(service.read_job, job.id))

        watch = watch_job(
            self._deps.subscriber,
            job.id,
            read,
            lambda current: current.status in _ENDED_PB,
            poll_s=self._deps.settings.api.watch_poll_interval_s,
        )
        async for current in watch:
            yield pb.WatchFAQImportResponse(progress=current)

    @streaming
    async def ExportFAQImportFailures(
        self, request: pb.ExportFAQImportFailuresRequest, context: Ctx
    ) -> AsyncIterator[pb.ExportFAQImportFailuresResponse]:
        identity = await self._deps.auth.identify(context)
        job = await asyncio.to_thread(self._deps.faq_imports.job, identity, request.job_id)
        frames = failure_csv(self._deps.faq_imports.jobs, job.id)
        while (frame := await asyncio.to_thread(next, frames, None)) is not None:
            yield pb.ExportFAQImportFailuresResponse(data=frame)

    async def _import_options(
        self, identity: Identity, options: pb.FAQImportOptions, field: str
    ) -> ImportOptions:
        if not options.knowledge_base_id:
            raise InvalidArgument.field(f"{field}.knowledge_base_id", "is required")
        return await asyncio.to_thread(
            self._deps.faq_imports.options,
            identity,
            options.knowledge_base_id,
            _MODES.get(options.mode, "append"),
            options.dry_run,
        )


_ENDED_PB = (knowledge_base_pb2.JOB_STATUS_COMPLETED, knowledge_base_pb2.JOB_STATUS_FAILED)
_STATUS_PB = {
    JobStatus.PENDING: knowledge_base_pb2.JOB_STATUS_PENDING,
    JobStatus.PROCESSING: knowledge_base_pb2.JOB_STATUS_PROCESSING,
    JobStatus.COMPLETED: knowledge_base_pb2.JOB_STATUS_COMPLETED,
    JobStatus.FAILED: knowledge_base_pb2.JOB_STATUS_FAILED,
}


def progress(job: FaqImportJob) -> pb.FAQImportProgress:
    return pb.FAQImportProgress(
        job_id=job.id,
        knowledge_base_id=job.knowledge_base_id,
        status=_STATUS_PB[JobStatus(job.status)],
        mode=pb.FAQ_IMPORT_MODE_REPLACE if job.mode == "replace" else pb.FAQ_IMPORT_MODE_APPEND,
        dry_run=job.dry_run,
        total=job.total,
        processed=job.processed,
        succeeded=job.succeeded,
        failed=job.failed,
        partially_failed=job.partial,
        skipped=job.skipped,
        error_message=job.error_message or "",
        has_failures=job.failed + job.partial > 0,
        deleted=job.deleted,
        created_at=convert.timestamp(job.created_at),
        updated_at=convert.timestamp(job.updated_at),
    )


def _listed_row(number: int, entry: pb.FAQEntryContent) -> ImportRow:
    """A listed entry as an import row; its columns (for the failure CSV) are its fields."""
    strategy = _STRATEGIES.get(entry.answer_strategy, "")
    return ImportRow(
        row_number=number,
        standard_question=entry.standard_question,
        similar_questions=list(entry.similar_questions),
        negative_questions=list(entry.negative_questions),
        answers=list(entry.answers),
        answer_strategy=strategy,
        tag_id=entry.tag_id,
        columns={
            "standard_question": entry.standard_question,
            "similar_questions": "##".join(entry.similar_questions),
            "negative_questions": "##".join(entry.negative_questions),
            "answers": "##".join(entry.answers),
            "answer_strategy": strategy,
            "tag_id": entry.tag_id,
        },
    )
