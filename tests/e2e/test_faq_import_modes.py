"""The FAQ import's modes over real gRPC, in lite and full mode: append with the four
checks (against the knowledge base and inside the import), the failure CSV (BOM, rows,
reasons, original columns, frames of at most 64 KiB), replace (kept, rewritten in place,
deleted, never a moment without what both have) and dry runs (counted, nothing written)."""

from __future__ import annotations

import codecs
import threading
import time
from collections.abc import Iterator

import pytest
from sluice.v1 import faq_pb2, knowledge_base_pb2

from tests.e2e.faq_import_support import FaqCalls, Row, csv_file, csv_rows, numbered
from tests.e2e.stacks import Stack

COMPLETED = knowledge_base_pb2.JOB_STATUS_COMPLETED
REPLACE = faq_pb2.FAQ_IMPORT_MODE_REPLACE
BASE = [
    Row("Opening hours", ("Nine to five.",), ("When are you open?",)),
    Row("Parking", ("Behind the station.",), ("Where can I park?",)),
]


@pytest.fixture(scope="module")
def calls(stack: Stack) -> Iterator[FaqCalls]:
    faq = FaqCalls(stack)
    yield faq
    faq.close()


def _kb_with(calls: FaqCalls, rows: list[Row]) -> str:
    kb = calls.faq_kb()
    assert calls.done(calls.import_list(kb, rows).job_id).succeeded == len(rows)
    return kb


def test_append_applies_the_four_checks_and_exports_the_failed_rows(calls: FaqCalls) -> None:
    kb = _kb_with(calls, BASE)
    rows = [
        # 1: a standard question that is another entry's similar question: fails.
        Row("when are you open?", ("Always.",)),
        # 2: a similar question that is another entry's question: only it is dropped.
        Row("Tickets", ("At the desk.",), ("parking", "Where to buy tickets?")),
        # 3: a negative question that is another entry's question: only it is dropped.
        Row("Lost and found", ("Ask the porter.",), negative=("Opening hours", "lost keys?")),
        # 4: an existing standard question: merged into that entry.
        Row("OPENING HOURS", ("Saturdays ten to two.",), ("hours?",)),
        # The same content as an entry: skipped.
        Row("Parking", ("Behind the station.",), ("Where can I park?",)),
        # Inside the import: a duplicate standard question merges into the earlier row's.
        Row("Tickets", ("Online too.",)),
    ]
    final = calls.done(calls.import_file(kb, "more.csv", csv_file(rows)).job_id)
    assert final.status == COMPLETED
    assert (final.succeeded, final.failed, final.partially_failed, final.skipped) == (2, 1, 2, 1)
    entries = calls.by_question(kb)
    assert set(entries) == {"Opening hours", "Parking", "Tickets", "Lost and found"}
    hours = entries["Opening hours"].content
    assert list(hours.answers) == ["Nine to five.", "Saturdays ten to two."]
    assert list(hours.similar_questions) == ["When are you open?", "hours?"]
    tickets = entries["Tickets"].content
    assert list(tickets.similar_questions) == ["Where to buy tickets?"]
    assert list(tickets.answers) == ["At the desk.", "Online too."]
    assert list(entries["Lost and found"].content.negative_questions) == ["lost keys?"]

    data, frames = calls.failures(final.job_id)
    assert data.startswith(codecs.BOM_UTF8)
    assert all(size <= 64 * 1024 for size in frames)
    failed = {int(r["row"]): r for r in csv_rows(data)}
    assert set(failed) == {2, 3, 4}
    assert "similar question of entry" in failed[2]["reason"]
    assert failed[2]["standard_question"] == "when are you open?"
    assert "'parking'" in failed[3]["reason"] and failed[3]["answers"] == "At the desk."
    assert "'Opening hours'" in failed[4]["reason"]


def test_a_large_failure_csv_comes_in_frames_of_at_most_64_kib(calls: FaqCalls) -> None:
    kb = calls.faq_kb()
    long_answer = "x" * 9000
    rows = [Row(f"Long {n}?" + "q" * 1200, (long_answer,)) for n in range(40)]
    final = calls.done(calls.import_file(kb, "long.csv", csv_file(rows)).job_id)
    assert final.failed == 40  # a standard question is at most 1000 characters
    data, frames = calls.failures(final.job_id)
    assert len(frames) > 1 and max(frames) <= 64 * 1024
    assert len(csv_rows(data)) == 40
    assert csv_rows(data)[0]["reason"] == "standard_question: is over 1000 characters"


def test_replace_keeps_rewrites_and_deletes_without_a_gap(calls: FaqCalls) -> None:
    kept = Row("Kept question about tides?", ("High tide at noon.",))
    kb = _kb_with(calls, [kept, *BASE, *numbered(30, "Old")])
    before = calls.by_question(kb)
    gaps: list[str] = []
    stop = threading.Event()

    def watch_search() -> None:
        # What both the old and the new set have must stay there throughout.
        while not stop.is_set():
            present = set(calls.by_question(kb))
            for question in (kept.q, "Parking"):
                if question not in present:
                    gaps.append(question)
            time.sleep(0.05)

    watcher = threading.Thread(target=watch_search)
    watcher.start()
    try:
        rows = [
            kept,
            Row("Parking", ("Now at the ferry terminal.",)),
            Row("New: Wi-Fi?", ("Yes.",)),
        ]
        final = calls.done(calls.import_list(kb, rows, mode=REPLACE).job_id)
    finally:
        stop.set()
        watcher.join()
    assert gaps == []
    assert (final.succeeded, final.skipped, final.deleted) == (2, 1, 31)
    after = calls.by_question(kb)
    assert set(after) == {kept.q, "Parking", "New: Wi-Fi?"}
    assert after[kept.q].id == before[kept.q].id
    assert after[kept.q].content_hash == before[kept.q].content_hash
    # Rewritten in place: the same entry, the new content.
    assert after["Parking"].id == before["Parking"].id
    assert list(after["Parking"].content.answers) == ["Now at the ferry terminal."]


def test_a_dry_run_counts_what_would_happen_and_writes_nothing(calls: FaqCalls) -> None:
    kb = _kb_with(calls, BASE)
    before = {q: e.content_hash for q, e in calls.by_question(kb).items()}
    rows = [
        Row("when are you open?", ("Always.",)),
        Row("Parking", ("Behind the station.",), ("Where can I park?",)),
        Row("Fresh?", ("Yes.",)),
    ]
    append = calls.done(calls.import_list(kb, rows, dry_run=True).job_id)
    assert (append.dry_run, append.failed, append.skipped, append.succeeded) == (True, 1, 1, 1)
    replace = calls.done(calls.import_list(kb, rows, mode=REPLACE, dry_run=True).job_id)
    assert (replace.skipped, replace.deleted) == (1, 1)
    assert {q: e.content_hash for q, e in calls.by_question(kb).items()} == before
    # Its failed rows can be downloaded like any import's.
    data, _ = calls.failures(append.job_id)
    assert [int(r["row"]) for r in csv_rows(data)] == [1]
