"""An FAQ import whose RQ worker is SIGKILLed mid-import (full mode: API, RQ workers,
PostgreSQL, Redis, the milvus-lite server) resumes on its next attempt from what it had
recorded: every row counted once, every entry written once, its index rows those of its
entries and no others.

RQ finds the dead worker's job abandoned once its heartbeat lapses (the monitoring interval
plus a minute) and retries it when a worker next cleans its registries, which a worker does
as it starts: the test waits the heartbeat out, then starts a new worker."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator

import pytest
from sluice.v1 import knowledge_base_pb2

from storage.db.engine import Database
from storage.db.models import KnowledgeBase
from storage.index.milvus_index import MilvusIndex
from tests.e2e.faq_import_support import FaqCalls, StoredEntry, csv_file, numbered
from tests.e2e.stacks import Stack, full_stack
from tests.support.processes import Process, python

ROWS = 1500
KILL_AFTER = 300
# RQ's heartbeat TTL for a running job: its monitoring interval (30 s) + 60 s.
HEARTBEAT_LAPSE_S = 95


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with full_stack(tmp_path_factory.mktemp("faq-crash"), workers=1) as running:
        yield running


def test_a_killed_import_resumes_without_duplicates(stack: Stack) -> None:
    calls = FaqCalls(stack)
    try:
        kb = calls.faq_kb()
        job = calls.import_file(kb, "many.csv", csv_file(list(numbered(ROWS)))).job_id
        deadline = time.monotonic() + 240
        while calls.progress(job).processed < KILL_AFTER:
            assert time.monotonic() < deadline, "the import never got going"
            time.sleep(0.2)
        stack.processes["worker0"].kill()
        killed_at = calls.progress(job)
        assert killed_at.status == knowledge_base_pb2.JOB_STATUS_PROCESSING
        assert killed_at.processed < ROWS
        time.sleep(HEARTBEAT_LAPSE_S)
        prefix = stack.env["SLUICE_KEY_PREFIX"]
        stack.processes["worker-after-kill"] = Process(
            "worker-after-kill",
            python("-m", "workers.main", "--name", f"{prefix}-after-kill"),
            stack.env,
        )
        final = calls.done(job)
        assert final.status == knowledge_base_pb2.JOB_STATUS_COMPLETED, final.error_message
        assert (final.total, final.processed, final.succeeded) == (ROWS, ROWS, ROWS)
        assert (final.failed, final.partially_failed, final.skipped) == (0, 0, 0)
        entries = calls.entries(kb)
        questions = Counter(e.content.standard_question for e in entries)
        assert len(entries) == ROWS and max(questions.values()) == 1
        assert_index_rows_are_the_entries(stack, kb, entries)
    finally:
        calls.close()


def assert_index_rows_are_the_entries(stack: Stack, kb_id: str, entries: list[StoredEntry]) -> None:
    """The FAQ knowledge's index rows are one per entry (they have no similar questions),
    each an entry's: none written twice, none left without its entry."""
    db = Database.from_url(stack.env["SLUICE_DATABASE_URL"])
    try:
        with db.session() as session:
            kb = session.get(KnowledgeBase, kb_id)
            assert kb is not None
            model_key = kb.embedding_model_key
    finally:
        db.dispose()
    (knowledge_id,) = {entry.knowledge_id for entry in entries}
    index = MilvusIndex(stack.env["SLUICE_MILVUS_URI"])
    try:
        rows = index.ids_for_knowledge(model_key, knowledge_id)
        owners = index.chunk_ids_for_knowledge(model_key, knowledge_id)
    finally:
        index.close()
    assert len(rows) == len(entries)
    assert set(owners) == {entry.id for entry in entries}
