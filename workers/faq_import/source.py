"""The rows of an import, in file order: from the task's payload or its stored file (read a
line at a time)."""

from __future__ import annotations

import io
from collections.abc import Iterator

from core.faq_import_rows import ImportRow
from core.payloads import FaqImportPayload
from storage.files.backend_scoped import BackendScopedFileService


def import_rows(files: BackendScopedFileService, payload: FaqImportPayload) -> Iterator[ImportRow]:
    if payload.rows is not None:
        yield from (ImportRow.from_dict(raw) for raw in payload.rows)
        return
    with files.open(payload.rows_path) as raw, io.TextIOWrapper(raw, encoding="utf-8") as text:
        for line in text:
            if line.strip():
                yield ImportRow.from_json(line)
