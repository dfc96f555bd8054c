"""A database outage that hits a document:process attempt is retried, not acknowledged.

A full stack runs on a database owned by its own login role. With the worker frozen, a
document is uploaded; then the role is locked out (NOLOGIN, its sessions terminated) and the
worker thawed, so its attempt fails reaching the database. Once the worker has reported the
failure and scheduled the retry, the role may log in again: the retry must complete the
document within the same processing attempt.
"""

from __future__ import annotations

import io
import os
import re
import signal
import uuid
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import full_stack
from tests.support.databases import locked_out, postgres_role_database
from tests.support.processes import Process
from tests.support.waiting import wait_until

RETRY_DELAY_S = 3
WAIT_S = 180
LOCKED_OUT = "is not permitted to log in"


def _has_line(process: Process, pattern: str) -> bool:
    compiled = re.compile(pattern)
    return any(compiled.search(line) for line in list(process.lines))


def _document() -> bytes:
    lines = ["# Outage drill", ""]
    lines += [f"Step {n}: the sluice gate keeper checks valve {n} twice." for n in range(10)]
    lines.append("The outage drill ends with cocoa for the night shift.")
    return "\n".join(lines).encode()


def test_an_attempt_that_cannot_reach_the_database_is_retried_in_the_same_round(
    tmp_path: Path,
) -> None:
    delays = ",".join([str(RETRY_DELAY_S)] * 3)
    with (
        postgres_role_database() as database,
        full_stack(
            tmp_path,
            workers=1,
            extra_env={
                "SLUICE_DATABASE_URL": database.url,
                "SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS": delays,
            },
        ) as stack,
        SluiceClient(stack.target) as client,
    ):
        worker = stack.processes["worker0"]
        worker.wait_for_line(r"Listening on", timeout=120)
        kb = client.create_knowledge_base(f"outage-{uuid.uuid4().hex[:8]}")

        os.killpg(worker.pid, signal.SIGSTOP)
        try:
            knowledge = client.upload_file(kb.id, io.BytesIO(_document()), file_name="drill.md")
            assert knowledge.parse_status == v1.ParseStatus.PENDING
            retry_scheduled = (
                rf"document-process-{knowledge.id}-{knowledge.attempt}: "
                r"scheduled for retry at .*, 2 remaining"
            )
            with locked_out(database):
                # Thawed while locked out: the attempt fails on the database and is put back.
                os.killpg(worker.pid, signal.SIGCONT)
                wait_until(
                    lambda: _has_line(worker, retry_scheduled),
                    60,
                    "the failed attempt is scheduled for a retry",
                )
        finally:
            os.killpg(worker.pid, signal.SIGCONT)

        assert _has_line(worker, LOCKED_OUT), "the attempt did not fail on the database"
        done = client.wait_until_done(knowledge.id, timeout=WAIT_S)
        assert done.parse_status == v1.ParseStatus.COMPLETED
        assert done.enable_status == v1.EnableStatus.ENABLED
        # A queue retry continues the round: no new attempt, and its spans are all of it.
        assert done.attempt == knowledge.attempt
        spans = client.get_spans(knowledge.id)
        assert spans.attempt == knowledge.attempt
        assert {span.attempt for span in spans.spans} == {knowledge.attempt}
        statuses = {span.name: span.status for span in spans.spans}
        assert statuses["knowledge_processing"] == v1.SpanStatus.DONE
        assert statuses["docreader"] == v1.SpanStatus.DONE
        assert statuses["embedding"] == v1.SpanStatus.DONE
        # The API's sessions were cut too; it reconnected and serves reads and searches.
        hits = client.search("What does the night shift get after the drill?", [kb.id], top_k=3)
        assert hits and hits[0].knowledge_id == knowledge.id
