"""A lite process SIGKILLed in the middle of processing: started again on the same data
directory, it finishes every document, and leaves nothing doubled or orphaned."""

from __future__ import annotations

import io
import time
import uuid
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1
from sqlalchemy import text

from storage.db.engine import Database
from tests.chaos.integrity import integrity_problems
from tests.e2e.stacks import lite_stack

DOCUMENTS = 24
MASCOTS = (
    "albatross",
    "badger",
    "capybara",
    "dolphin",
    "echidna",
    "flamingo",
    "gazelle",
    "hedgehog",
    "ibis",
    "jaguar",
    "koala",
    "lemur",
    "marmot",
    "narwhal",
    "ocelot",
    "pelican",
    "quokka",
    "raccoon",
    "salamander",
    "tapir",
    "urchin",
    "vulture",
    "walrus",
    "yak",
)
TERMINAL = {v1.ParseStatus.COMPLETED, v1.ParseStatus.FAILED, v1.ParseStatus.CANCELLED}


def _document(n: int) -> bytes:
    lines = [f"# Restart notes {n}", ""]
    for section in range(6):
        lines.append(
            f"## Part {section}\n\nLog {n}-{section}: the keeper of lock {n} greased gate "
            f"{section} and wrote down the water level in centimetres.\n"
        )
    lines.append(f"The mascot of lock {n} is a {MASCOTS[n]} painted on the gate.")
    return "\n".join(lines).encode()


def _statuses(db: Database) -> dict[str, tuple[str, int, int]]:
    with db.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT id, parse_status, attempt, auto_requeues FROM knowledges")
        ).all()
    return {r.id: (r.parse_status, r.attempt, r.auto_requeues) for r in rows}


def _with_spans(db: Database) -> set[str]:
    with db.engine.connect() as conn:
        rows = conn.execute(text("SELECT DISTINCT knowledge_id FROM knowledge_processing_spans"))
        return {r.knowledge_id for r in rows}


def test_a_killed_lite_process_finishes_every_document_after_a_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "lite"
    db = Database.from_url(f"sqlite:///{data_dir / 'sluice.db'}")
    try:
        with lite_stack(data_dir) as stack, SluiceClient(stack.target) as client:
            kb = client.create_knowledge_base(f"restart-{uuid.uuid4().hex[:6]}")
            for n in range(DOCUMENTS):
                client.upload_file(kb.id, io.BytesIO(_document(n)), file_name=f"notes-{n}.md")
            deadline = time.monotonic() + 120
            while True:
                states = [s for s, _, _ in _statuses(db).values()]
                if "completed" in states and "processing" in states:
                    break
                assert time.monotonic() < deadline, f"no progress: {states}"
                time.sleep(0.05)
            stack.processes["api"].kill()
        at_kill = _statuses(db)
        # A row turns processing a moment before its round writes its first span.
        spanned = _with_spans(db)
        interrupted = {k for k, (s, _, _) in at_kill.items() if s == "processing"}
        never_started = {k for k, (s, _, _) in at_kill.items() if s == "pending"}
        assert interrupted & spanned and never_started

        with lite_stack(data_dir) as stack, SluiceClient(stack.target) as client:
            deadline = time.monotonic() + 240
            while True:
                listed = list(client.list_knowledge(kb.id, page_size=100))
                if len(listed) == DOCUMENTS and all(k.parse_status in TERMINAL for k in listed):
                    break
                assert time.monotonic() < deadline, (
                    f"documents still in flight after restart: {_statuses(db)}"
                )
                time.sleep(0.5)
            assert {k.parse_status for k in listed} == {v1.ParseStatus.COMPLETED}
            some = sorted(interrupted & spanned)[0]
            old_round = {s.name: s for s in client.get_spans(some, attempt=1).spans}
            assert old_round["knowledge_processing"].status == v1.SpanStatus.FAILED
            assert old_round["knowledge_processing"].error_code == "TASK_STALLED"
            assert "by a restart" in old_round["knowledge_processing"].error_message
            hits = client.search("Which lock has a narwhal as its mascot?", [kb.id], top_k=3)
            assert hits and "a narwhal painted" in hits[0].content

        after = _statuses(db)
        for knowledge_id in interrupted:
            # A new round for the interrupted one, counted against the requeue budget…
            assert after[knowledge_id] == ("completed", 2, 1)
        for knowledge_id in never_started:
            # …and for the ones that never started, re-enqueued for free.
            assert after[knowledge_id] == ("completed", 2, 0)
    finally:
        db.dispose()
    assert (
        integrity_problems(
            f"sqlite:///{data_dir / 'sluice.db'}", str(data_dir / "milvus.db"), data_dir / "files"
        )
        == []
    )
