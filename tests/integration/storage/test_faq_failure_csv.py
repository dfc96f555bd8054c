"""The failure CSV of an import, from its recorded rows on PostgreSQL and SQLite: a byte
order mark, the failed and partially failed rows in file order with their reasons and
every original column (the union of the rows' columns; one named like a leading column once
or told apart), in frames of at most 64 KiB."""

from __future__ import annotations

import codecs
import csv
import io
import uuid

from server.services.faq_failures_csv import FRAME_BYTES, failure_csv
from storage.db.engine import Database
from storage.db.repositories.faq_imports import BatchCounts, FaqImportRepository, RowOutcome
from tests.integration.storage.conftest import Scope


def test_the_failed_rows_as_a_bom_csv_in_bounded_frames(database: Database, scope: Scope) -> None:
    jobs = FaqImportRepository(database)
    job_id = jobs.start(
        id=str(uuid.uuid4()), tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id
    ).id
    jobs.begin(job_id)
    long_cell = "答" * 3000
    rows = [
        RowOutcome(n, kind, f'Q{n}, "quoted"', f"reason {n}", {"answers": long_cell, **extra})
        for n, kind, extra in [
            (
                n,
                ("failed", "succeeded", "partial", "skipped")[n % 4],
                {"notes": f"n{n}"} if n % 8 == 0 else {},
            )
            for n in range(2, 202)
        ]
    ]
    jobs.record_batch(
        job_id, processed_before=0, recoveries=0, rows=rows, counts=BatchCounts(), writes=None
    )
    frames = list(failure_csv(jobs, job_id))
    assert len(frames) > 1 and all(len(frame) <= FRAME_BYTES for frame in frames)
    data = b"".join(frames)
    assert data.startswith(codecs.BOM_UTF8)
    table = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert table[0] == ["row", "standard_question", "reason", "answers", "notes"]
    expected = [r for r in rows if r.outcome in ("failed", "partial")]
    assert [int(line[0]) for line in table[1:]] == [r.row_number for r in expected]
    first = table[1]
    assert first[1:4] == [expected[0].standard_question, expected[0].reason, long_cell]
    assert first[4] == expected[0].columns.get("notes", "")


def test_an_import_without_failures_gives_the_header_alone(
    database: Database, scope: Scope
) -> None:
    jobs = FaqImportRepository(database)
    job_id = jobs.start(
        id=str(uuid.uuid4()), tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id
    ).id
    assert (
        b"".join(failure_csv(jobs, job_id)) == codecs.BOM_UTF8 + b"row,standard_question,reason\r\n"
    )


def test_columns_named_like_the_leading_ones_appear_once_or_told_apart(
    database: Database, scope: Scope
) -> None:
    """A list import's rows (and a file with such a header) have a standard_question column:
    it is the leading one; a file's own "row" or "reason" column is kept as file:row."""
    jobs = FaqImportRepository(database)
    job_id = jobs.start(
        id=str(uuid.uuid4()), tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id
    ).id
    jobs.begin(job_id)
    columns = {"standard_question": "Why?", "answers": "", "reason": "asked twice"}
    row = RowOutcome(2, "failed", "Why?", "answers: at least one answer is required", columns)
    jobs.record_batch(
        job_id, processed_before=0, recoveries=0, rows=[row], counts=BatchCounts(), writes=None
    )
    data = b"".join(failure_csv(jobs, job_id)).decode("utf-8-sig")
    header, *lines = list(csv.reader(io.StringIO(data)))
    assert header[:3] == ["row", "standard_question", "reason"]
    assert sorted(header[3:]) == ["answers", "file:reason"]
    assert [dict(zip(header, line, strict=True)) for line in lines] == [
        {
            "row": "2",
            "standard_question": "Why?",
            "reason": "answers: at least one answer is required",
            "answers": "",
            "file:reason": "asked twice",
        }
    ]
