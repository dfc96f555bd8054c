"""Lite mode: the process SIGKILLed in the middle of an FAQ import, started again on the
same data directory, queues the import again in its startup recovery pass (the in-process
queue died with it) and the import resumes: every row counted once, one entry per row,
index rows exactly the entries'. The kill comes while the embedding server holds the second batch's
request (counted, its writes pending)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from sluice.v1 import knowledge_base_pb2

from storage.db.repositories.faq_imports import FaqImportRepository
from tests.e2e.crash_support import HeldEmbeddings
from tests.e2e.faq_crash_support import (
    COUNTED_AT_KILL,
    EMBED_BATCH,
    HELD_REQUEST,
    ROWS,
    assert_index_rows_are_the_entries,
    faq_kb,
)
from tests.e2e.faq_import_support import FaqCalls, csv_file, numbered
from tests.e2e.stacks import lite_stack

ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1", "SLUICE_EMBED_BATCH_SIZE": str(EMBED_BATCH)}


def test_a_killed_lite_process_resumes_its_import_after_a_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "lite"
    embeddings = HeldEmbeddings(hold_at=HELD_REQUEST)
    with embeddings:
        try:
            with lite_stack(data_dir, extra_env=ENV) as stack:
                calls = FaqCalls(stack)
                try:
                    kb = faq_kb(stack, embeddings)
                    job = calls.import_file(kb, "many.csv", csv_file(list(numbered(ROWS)))).job_id
                    embeddings.wait_held()
                    stack.processes["api"].kill()
                    killed_at = FaqImportRepository(calls.db).get(None, job)
                    assert killed_at is not None
                    assert (killed_at.status, killed_at.processed) == (
                        "processing",
                        COUNTED_AT_KILL,
                    )
                finally:
                    calls.close()
            embeddings.release()

            with lite_stack(data_dir, extra_env=ENV) as stack:
                calls = FaqCalls(stack)
                try:
                    final = calls.done(job)
                    assert final.status == knowledge_base_pb2.JOB_STATUS_COMPLETED, final
                    assert (final.total, final.processed, final.succeeded) == (ROWS, ROWS, ROWS)
                    row = FaqImportRepository(calls.db).get(None, job)
                    assert row is not None and row.recoveries == 1
                    entries = calls.entries(kb)
                    questions = Counter(e.content.standard_question for e in entries)
                    assert len(entries) == ROWS and max(questions.values()) == 1
                finally:
                    calls.close()
            assert_index_rows_are_the_entries(stack, kb, entries)
        finally:
            embeddings.release()
