"""An FAQ import whose RQ worker is SIGKILLed mid-import (full mode: API, RQ workers, the
housekeeper, PostgreSQL, Redis, the milvus-lite server) is queued again by housekeeping
once its task's heartbeat lapsed — seconds, not the job's 2 h time limit — and resumes on a
new worker from what it had recorded: every row counted once, every entry written once,
its index rows those of its entries and no others.

The kill comes at a deterministic point: the embedding server holds the embedding request
of the third batch, which the import has counted (its writes pending) but not written."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from sluice.v1 import knowledge_base_pb2

from storage.db.repositories.faq_imports import FaqImportRepository
from tests.e2e.crash_support import CRASH_ENV, HeldEmbeddings, kill_workers, start_worker
from tests.e2e.faq_crash_support import (
    COUNTED_AT_KILL,
    EMBED_BATCH,
    HELD_REQUEST,
    ROWS,
    assert_index_rows_are_the_entries,
    faq_kb,
)
from tests.e2e.faq_import_support import FaqCalls, csv_file, numbered
from tests.e2e.stacks import Stack, full_stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {**CRASH_ENV, "SLUICE_EMBED_BATCH_SIZE": str(EMBED_BATCH)}
    with full_stack(tmp_path_factory.mktemp("faq-crash"), workers=1, extra_env=env) as running:
        yield running


def test_a_killed_import_resumes_without_duplicates(stack: Stack) -> None:
    calls = FaqCalls(stack)
    embeddings = HeldEmbeddings(hold_at=HELD_REQUEST)
    with embeddings:
        try:
            kb = faq_kb(stack, embeddings)
            job = calls.import_file(kb, "many.csv", csv_file(list(numbered(ROWS)))).job_id
            embeddings.wait_held()
            kill_workers(stack)
            killed_at = calls.progress(job)
            assert killed_at.status == knowledge_base_pb2.JOB_STATUS_PROCESSING
            assert killed_at.processed == COUNTED_AT_KILL  # its writes pending
            embeddings.release()
            start_worker(stack)

            final = calls.done(job)
            assert final.status == knowledge_base_pb2.JOB_STATUS_COMPLETED, final.error_message
            assert (final.total, final.processed, final.succeeded) == (ROWS, ROWS, ROWS)
            assert (final.failed, final.partially_failed, final.skipped) == (0, 0, 0)
            row = FaqImportRepository(calls.db).get(None, job)
            assert row is not None and row.recoveries == 1
            entries = calls.entries(kb)
            questions = Counter(e.content.standard_question for e in entries)
            assert len(entries) == ROWS and max(questions.values()) == 1
            assert_index_rows_are_the_entries(stack, kb, entries)
        finally:
            embeddings.release()
            calls.close()
