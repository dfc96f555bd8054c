"""`SluiceClient`'s methods for FAQ imports (FAQService): a list or a file imported, the
job's progress read or watched to its end, and its failed rows downloaded as CSV."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import BinaryIO

from sluice_client._calls import call, required
from sluice_client._proto.sluice import v1
from sluice_client._upload import FileSource, open_source
from sluice_client.errors import translated_rpc_errors

# Data frames of an import file: well under the server's message limit.
_FRAME_BYTES = 1 << 20


def faq_import_options(
    knowledge_base_id: str, *, replace: bool = False, dry_run: bool = False
) -> v1.FaqImportOptions:
    mode = v1.FaqImportMode.REPLACE if replace else v1.FaqImportMode.APPEND
    return v1.FaqImportOptions(knowledge_base_id=knowledge_base_id, mode=mode, dry_run=dry_run)


class FaqImportMethods:
    """Mixed into SluiceClient, which sets the stub."""

    _faq_imports: v1.FaqServiceStub

    def import_faq_entries(
        self, options: v1.FaqImportOptions, entries: Iterable[v1.FaqEntryContent]
    ) -> v1.FaqImportProgress:
        """Queue an import of at most 200 entries; the job's progress (pending)."""
        request = v1.ImportFaqEntriesRequest(options=options, entries=list(entries))
        return required(call(self._faq_imports.import_faq_entries, request).progress, "progress")

    def import_faq_file(
        self, options: v1.FaqImportOptions, source: FileSource, *, file_name: str | None = None
    ) -> v1.FaqImportProgress:
        """Queue an import of a CSV, JSON or XLSX file (its format from its name)."""
        name, opened = open_source(source, file_name)
        with opened as stream, translated_rpc_errors():
            header = v1.ImportFaqFileHeader(options=options, file_name=name)
            response = self._faq_imports.import_faq_file(_frames(header, stream))
        return required(response.progress, "progress")

    def faq_import_progress(self, job_id: str) -> v1.FaqImportProgress:
        request = v1.GetFaqImportProgressRequest(job_id=job_id)
        return required(
            call(self._faq_imports.get_faq_import_progress, request).progress, "progress"
        )

    def watch_faq_import(self, job_id: str) -> Iterator[v1.FaqImportProgress]:
        """The progress now, then at every change, until the job is completed or failed."""
        with translated_rpc_errors():
            for message in self._faq_imports.watch_faq_import(
                v1.WatchFaqImportRequest(job_id=job_id)
            ):
                yield required(message.progress, "progress")

    def export_faq_import_failures(self, job_id: str, sink: BinaryIO) -> int:
        """Write the failed rows' CSV (UTF-8 with a BOM) to `sink`; the bytes written."""
        written = 0
        request = v1.ExportFaqImportFailuresRequest(job_id=job_id)
        with translated_rpc_errors():
            for frame in self._faq_imports.export_faq_import_failures(request):
                sink.write(frame.data)
                written += len(frame.data)
        return written


def _frames(header: v1.ImportFaqFileHeader, stream: BinaryIO) -> Iterator[v1.ImportFaqFileRequest]:
    yield v1.ImportFaqFileRequest(header=header)
    while piece := stream.read(_FRAME_BYTES):
        yield v1.ImportFaqFileRequest(data=piece)
