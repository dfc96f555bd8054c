"""ExportFAQImportFailures' CSV: the failed and partially failed rows of an import (row
number, standard question, reason, then the row's columns as read), UTF-8 with a byte
order mark (so spreadsheet programs read it as UTF-8), produced a page of rows at a time
and cut into frames of at most ``frame_bytes``."""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterator

from storage.db.models import FaqImportRow
from storage.db.repositories.faq_imports import FaqImportRepository

FRAME_BYTES = 64 * 1024
_PAGE_ROWS = 500
LEADING_COLUMNS = ("row", "standard_question", "reason")
_QUESTION = "standard_question"


def failure_csv(
    jobs: FaqImportRepository, job_id: str, *, frame_bytes: int = FRAME_BYTES
) -> Iterator[bytes]:
    names = _column_names(jobs, job_id)
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow([*LEADING_COLUMNS, *(_header(name) for name in names)])
    pending = codecs.BOM_UTF8
    for page in _pages(jobs, job_id):
        for row in page:
            writer.writerow(
                [
                    row.row_number,
                    row.standard_question,
                    row.reason,
                    *(row.columns.get(name, "") for name in names),
                ]
            )
        pending += text.getvalue().encode("utf-8")
        text.seek(0)
        text.truncate()
        while len(pending) >= frame_bytes:
            yield pending[:frame_bytes]
            pending = pending[frame_bytes:]
    pending += text.getvalue().encode("utf-8")
    for start in range(0, len(pending), frame_bytes):
        yield pending[start : start + frame_bytes]


def _pages(jobs: FaqImportRepository, job_id: str) -> Iterator[list[FaqImportRow]]:
    after = 0
    while True:
        page = jobs.failed_rows(job_id, after_row=after, limit=_PAGE_ROWS)
        if not page:
            return
        yield page
        after = page[-1].row_number


def _column_names(jobs: FaqImportRepository, job_id: str) -> list[str]:
    """Every column the failed rows have, in the order they first appear (the file's
    header order on SQLite; PostgreSQL's jsonb keeps a row's keys in an order of its own),
    but a ``standard_question`` column: the leading one
    holds what it held (a list import's, or a file with that header)."""
    names: dict[str, None] = {}
    for page in _pages(jobs, job_id):
        for row in page:
            names.update(dict.fromkeys(row.columns))
    names.pop(_QUESTION, None)
    return list(names)


def _header(name: str) -> str:
    """A column of the file named like a leading one ("row", "reason") is told apart."""
    return f"file:{name}" if name in LEADING_COLUMNS else name
