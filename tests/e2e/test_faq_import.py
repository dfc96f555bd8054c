"""FAQ imports over real gRPC, in lite and full mode: a list and CSV / JSON / XLSX files
(the reference template's Chinese headers too), progress read and watched to the end, the
import lock, more than 200 rows staged in a stored file, and bad files refused with the
row at fault and nothing kept."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import cast

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from sluice.v1 import faq_pb2, knowledge_base_pb2
from sqlalchemy import select

from storage.db.engine import Database
from storage.db.models import FaqImportJob
from tests.e2e.faq_import_support import (
    CHINESE_HEADERS,
    FaqCalls,
    Row,
    csv_file,
    json_file,
    numbered,
    options,
    xlsx_file,
)
from tests.e2e.stacks import MAX_UPLOAD_BYTES, Stack
from workers.settings import Settings

COMPLETED = knowledge_base_pb2.JOB_STATUS_COMPLETED
ROWS = [
    Row("How do I open the lock gate?", ("Press the green lever.",), ("open the gate",)),
    Row("When is the harbour closed?", ("At midnight.", "On holidays."), negative=("open",)),
    Row("Who keeps the lighthouse?", ("The keeper, Ana.",), tag="staff"),
]


@pytest.fixture(scope="module")
def calls(stack: Stack) -> Iterator[FaqCalls]:
    faq = FaqCalls(stack)
    yield faq
    faq.close()


@pytest.fixture(scope="module")
def database(stack: Stack) -> Iterator[Database]:
    db = Database.from_url(Settings.from_env(env=stack.env).storage.database_url)
    yield db
    db.dispose()


def _details(error: grpc.RpcError) -> list[object]:
    """The rich error details a refusal carries."""
    call = cast(grpc.Call, error)
    trailers = dict(call.trailing_metadata() or ())
    status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
    found: list[object] = []
    for detail in status.details:
        for kind in (error_details_pb2.BadRequest, error_details_pb2.PreconditionFailure):
            if detail.Is(kind.DESCRIPTOR):
                message = kind()
                detail.Unpack(message)
                found.append(message)
    return found


def test_a_list_import_is_watched_to_completion_and_its_entries_are_found(
    calls: FaqCalls,
) -> None:
    kb = calls.faq_kb()
    started = calls.import_list(kb, ROWS)
    assert started.status == knowledge_base_pb2.JOB_STATUS_PENDING and started.total == 3
    seen = calls.watch(started.job_id)
    final = seen[-1]
    assert final.status == COMPLETED
    assert (final.total, final.processed, final.succeeded) == (3, 3, 3)
    assert (final.failed, final.partially_failed, final.skipped) == (0, 0, 0)
    assert not final.has_failures
    # A snapshot first; every progress differs from the one before it; counts only grow.
    assert all(a != b for a, b in pairwise(seen))
    assert [p.processed for p in seen] == sorted(p.processed for p in seen)
    assert calls.progress(started.job_id) == final
    entries = calls.by_question(kb)
    assert set(entries) == {row.q for row in ROWS}
    gate = entries["How do I open the lock gate?"]
    assert list(gate.content.similar_questions) == ["open the gate"]
    assert gate.enabled


@pytest.mark.parametrize(
    ("name", "build", "file_format"),
    [
        ("faq.csv", csv_file, faq_pb2.FAQ_FILE_FORMAT_UNSPECIFIED),
        ("faq.json", json_file, faq_pb2.FAQ_FILE_FORMAT_UNSPECIFIED),
        ("faq.xlsx", xlsx_file, faq_pb2.FAQ_FILE_FORMAT_UNSPECIFIED),
        # The format from the header, whatever the name says.
        ("upload.bin", json_file, faq_pb2.FAQ_FILE_FORMAT_JSON),
    ],
)
def test_a_file_import_reads_every_format(
    calls: FaqCalls, name: str, build: object, file_format: faq_pb2.FAQFileFormat
) -> None:
    kb = calls.faq_kb()
    data = build(ROWS)  # type: ignore[operator]
    final = calls.done(calls.import_file(kb, name, data, file_format=file_format).job_id)
    assert (final.status, final.succeeded, final.failed) == (COMPLETED, 3, 0)
    entries = calls.by_question(kb)
    harbour = entries["When is the harbour closed?"]
    # A cell's values split on line breaks (answers) and "##" (the others).
    assert list(harbour.content.answers) == ["At midnight.", "On holidays."]
    assert list(harbour.content.negative_questions) == ["open"]
    # The tag column names a tag, created in the knowledge base when it has none so named.
    assert entries["Who keeps the lighthouse?"].content.tag_id


def test_the_reference_templates_chinese_headers_are_read(calls: FaqCalls) -> None:
    kb = calls.faq_kb()
    rows = [Row("闸门几点开?", ("早上六点。", "节假日不开。"), ("开门时间",), tag="常见")]
    final = calls.done(calls.import_file(kb, "模板.csv", csv_file(rows, CHINESE_HEADERS)).job_id)
    assert (final.status, final.succeeded) == (COMPLETED, 1)
    entry = calls.by_question(kb)["闸门几点开?"]
    assert list(entry.content.answers) == ["早上六点。", "节假日不开。"]
    assert list(entry.content.similar_questions) == ["开门时间"]


def test_many_rows_are_staged_in_a_stored_file_and_hold_the_lock(
    calls: FaqCalls, database: Database, stack: Stack
) -> None:
    kb = calls.faq_kb()
    big = calls.import_file(kb, "many.csv", csv_file(list(numbered(260))))
    with pytest.raises(grpc.RpcError) as refused:
        calls.import_list(kb, ROWS[:1])
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert big.job_id in str(refused.value.details())
    (failure,) = [
        d for d in _details(refused.value) if isinstance(d, error_details_pb2.PreconditionFailure)
    ]
    assert big.job_id in failure.violations[0].subject
    with database.session() as session:
        staged = session.scalars(
            select(FaqImportJob.source_path).where(FaqImportJob.id == big.job_id)
        ).one()
    assert staged
    final = calls.done(big.job_id)
    assert (final.status, final.total, final.succeeded) == (COMPLETED, 260, 260)
    assert len(calls.entries(kb)) == 260
    # The stored rows are gone with the job; the lock is free again.
    assert not list(stack.storage_dir.rglob("*.jsonl"))
    small = calls.import_list(kb, ROWS[:1])
    assert calls.done(small.job_id).succeeded == 1
    with database.session() as session:
        inline = session.scalars(
            select(FaqImportJob.source_path).where(FaqImportJob.id == small.job_id)
        ).one()
    assert inline == ""


@pytest.mark.parametrize(
    ("name", "data", "code", "text"),
    [
        (
            "bad.json",
            b'[{"standard_question": "a", "answers": ["b"]}, {"standard_',
            grpc.StatusCode.INVALID_ARGUMENT,
            "row 2",
        ),
        ("bad.json", b'{"standard_question": "a"}', grpc.StatusCode.INVALID_ARGUMENT, "row 1"),
        (
            "bad.csv",
            b"question,notes\nq,n\n",
            grpc.StatusCode.INVALID_ARGUMENT,
            "no answers column",
        ),
        ("bad.csv", b"question,answers\nq,\xff\xfe\n", grpc.StatusCode.INVALID_ARGUMENT, "row 2"),
        ("bad.xlsx", b"PK\x03\x04 not a workbook", grpc.StatusCode.INVALID_ARGUMENT, "row 1"),
        (
            "faq.txt",
            b"question,answers\n",
            grpc.StatusCode.INVALID_ARGUMENT,
            ".csv, .json or .xlsx",
        ),
        (
            "huge.csv",
            b"question,answers\n" + b"q,a\n" * (MAX_UPLOAD_BYTES // 4 + 1),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "limit",
        ),
    ],
)
def test_a_bad_file_is_refused_and_leaves_nothing(
    calls: FaqCalls,
    database: Database,
    stack: Stack,
    name: str,
    data: bytes,
    code: grpc.StatusCode,
    text: str,
) -> None:
    kb = calls.faq_kb()
    with pytest.raises(grpc.RpcError) as refused:
        calls.import_file(kb, name, data)
    assert refused.value.code() == code
    assert text in str(refused.value.details())
    with database.session() as session:
        assert (
            session.scalars(select(FaqImportJob).where(FaqImportJob.knowledge_base_id == kb)).all()
            == []
        )
    assert calls.entries(kb) == []


def test_frames_out_of_order_are_refused_like_an_upload(calls: FaqCalls) -> None:
    """The stream is read by the one frame reader uploads use (server.api.stream_frames)."""
    kb = calls.faq_kb()
    header = faq_pb2.ImportFAQFileHeader(
        options=options(kb, faq_pb2.FAQ_IMPORT_MODE_APPEND, False), file_name="faq.csv"
    )
    data = faq_pb2.ImportFAQFileRequest(data=b"question,answers\nq,a\n")
    for frames, text in (
        ([data], "the first frame must be a header"),
        (
            [faq_pb2.ImportFAQFileRequest(header=header)] * 2,
            "only data frames may follow the header",
        ),
    ):
        with pytest.raises(grpc.RpcError) as refused:
            calls.faq.ImportFAQFile(iter(frames), timeout=60)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert text in str(refused.value.details())
    assert calls.entries(kb) == []


def test_listed_rows_that_fail_validation_are_failed_rows_not_a_failed_request(
    calls: FaqCalls,
) -> None:
    kb = calls.faq_kb()
    final = calls.done(
        calls.import_list(kb, [ROWS[0], Row("No answer here?", ()), Row("", ("orphan",))]).job_id
    )
    assert (final.status, final.succeeded, final.failed, final.has_failures) == (
        COMPLETED,
        1,
        2,
        True,
    )


def test_imports_are_refused_where_they_cannot_go(calls: FaqCalls) -> None:
    with pytest.raises(grpc.RpcError) as not_faq:
        calls.import_list(calls.document_kb(), ROWS)
    assert not_faq.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    kb = calls.faq_kb()
    with pytest.raises(grpc.RpcError) as too_many:
        calls.import_list(kb, list(numbered(201)))
    assert too_many.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "ImportFAQFile" in str(too_many.value.details())
    with pytest.raises(grpc.RpcError) as unknown:
        calls.progress("00000000-0000-4000-8000-000000000000")
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
