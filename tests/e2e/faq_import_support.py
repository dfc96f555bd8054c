"""FAQ import calls over real gRPC for the e2e tests: an FAQ knowledge base, imports of a
list or a file (CSV, JSON, XLSX built here), the watch until the job ends, the failure CSV
and the knowledge base's entries."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import openpyxl
from sluice.v1 import faq_pb2, faq_pb2_grpc, knowledge_base_pb2, knowledge_base_pb2_grpc

from core.faq_entry import FaqEntryContent
from storage.db.engine import Database
from storage.db.repositories.faq_entries import FaqEntryRepository
from tests.e2e.stacks import Stack
from workers.settings import Settings

WAIT_S = 240
FRAME = 64 * 1024
ENDED = (knowledge_base_pb2.JOB_STATUS_COMPLETED, knowledge_base_pb2.JOB_STATUS_FAILED)


@dataclass(frozen=True)
class Row:
    q: str
    answers: Sequence[str] = ("An answer.",)
    similar: Sequence[str] = ()
    negative: Sequence[str] = ()
    tag: str = ""


@dataclass(frozen=True)
class StoredEntry:
    """An entry as the database holds it (read there, not through the entries' RPCs)."""

    id: str
    knowledge_id: str
    content: FaqEntryContent
    content_hash: str
    enabled: bool


class FaqCalls:
    def __init__(self, stack: Stack) -> None:
        self.channel = grpc.insecure_channel(stack.target)
        self.faq = faq_pb2_grpc.FAQServiceStub(self.channel)
        self.kbs = knowledge_base_pb2_grpc.KnowledgeBaseServiceStub(self.channel)
        self.db = Database.from_url(Settings.from_env(env=stack.env).storage.database_url)

    def close(self) -> None:
        self.channel.close()
        self.db.dispose()

    def faq_kb(self) -> str:
        request = knowledge_base_pb2.CreateKnowledgeBaseRequest(
            name=f"faq-{uuid.uuid4().hex[:8]}", type=knowledge_base_pb2.KNOWLEDGE_BASE_TYPE_FAQ
        )
        return str(self.kbs.CreateKnowledgeBase(request).knowledge_base.id)

    def document_kb(self) -> str:
        request = knowledge_base_pb2.CreateKnowledgeBaseRequest(name=f"doc-{uuid.uuid4().hex[:8]}")
        return str(self.kbs.CreateKnowledgeBase(request).knowledge_base.id)

    def import_list(
        self,
        kb_id: str,
        rows: Sequence[Row],
        *,
        mode: faq_pb2.FAQImportMode = faq_pb2.FAQ_IMPORT_MODE_UNSPECIFIED,
        dry_run: bool = False,
    ) -> faq_pb2.FAQImportProgress:
        request = faq_pb2.ImportFAQEntriesRequest(
            options=options(kb_id, mode, dry_run), entries=[content(row) for row in rows]
        )
        return self.faq.ImportFAQEntries(request, timeout=60).progress

    def import_file(
        self,
        kb_id: str,
        file_name: str,
        data: bytes,
        *,
        mode: faq_pb2.FAQImportMode = faq_pb2.FAQ_IMPORT_MODE_UNSPECIFIED,
        dry_run: bool = False,
        file_format: faq_pb2.FAQFileFormat = faq_pb2.FAQ_FILE_FORMAT_UNSPECIFIED,
    ) -> faq_pb2.FAQImportProgress:
        header = faq_pb2.ImportFAQFileHeader(
            options=options(kb_id, mode, dry_run), file_name=file_name, format=file_format
        )
        frames = [faq_pb2.ImportFAQFileRequest(header=header)] + [
            faq_pb2.ImportFAQFileRequest(data=data[i : i + FRAME])
            for i in range(0, len(data), FRAME)
        ]
        return self.faq.ImportFAQFile(iter(frames), timeout=120).progress

    def watch(self, job_id: str) -> list[faq_pb2.FAQImportProgress]:
        """Every progress the watch sent, until it ended (the job completed or failed)."""
        stream = self.faq.WatchFAQImport(
            faq_pb2.WatchFAQImportRequest(job_id=job_id), timeout=WAIT_S
        )
        return [message.progress for message in stream]

    def done(self, job_id: str) -> faq_pb2.FAQImportProgress:
        seen = self.watch(job_id)
        assert seen[-1].status in ENDED, seen[-1]
        return seen[-1]

    def progress(self, job_id: str) -> faq_pb2.FAQImportProgress:
        request = faq_pb2.GetFAQImportProgressRequest(job_id=job_id)
        return self.faq.GetFAQImportProgress(request, timeout=30).progress

    def failures(self, job_id: str) -> tuple[bytes, list[int]]:
        """The failure CSV's bytes and the size of each frame it came in."""
        request = faq_pb2.ExportFAQImportFailuresRequest(job_id=job_id)
        frames = [m.data for m in self.faq.ExportFAQImportFailures(request, timeout=60)]
        return b"".join(frames), [len(frame) for frame in frames]

    def entries(self, kb_id: str) -> list[StoredEntry]:
        chunks, _ = FaqEntryRepository(self.db).page(kb_id, limit=100_000)
        return [
            StoredEntry(
                chunk.id,
                chunk.knowledge_id,
                FaqEntryContent.from_metadata(chunk.meta),
                chunk.content_hash,
                chunk.is_enabled,
            )
            for chunk in chunks
        ]

    def by_question(self, kb_id: str) -> dict[str, StoredEntry]:
        return {entry.content.standard_question: entry for entry in self.entries(kb_id)}


def options(kb_id: str, mode: faq_pb2.FAQImportMode, dry_run: bool) -> faq_pb2.FAQImportOptions:
    return faq_pb2.FAQImportOptions(knowledge_base_id=kb_id, mode=mode, dry_run=dry_run)


def content(row: Row) -> faq_pb2.FAQEntryContent:
    return faq_pb2.FAQEntryContent(
        standard_question=row.q,
        similar_questions=list(row.similar),
        negative_questions=list(row.negative),
        answers=list(row.answers),
    )


HEADERS = ["standard_question", "similar_questions", "negative_questions", "answers", "tag"]
CHINESE_HEADERS = [
    "问题(必填)",
    "相似问题(选填-多个用##分隔)",
    "反例问题(选填-多个用##分隔)",
    "机器人回答(必填-多个用##分隔)",
    "分类(必填)",
]


def _cells(row: Row) -> list[str]:
    return ["##".join(row.similar), "##".join(row.negative), "\n".join(row.answers), row.tag]


def csv_file(rows: Sequence[Row], headers: Sequence[str] = HEADERS) -> bytes:
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(headers)
    for row in rows:
        writer.writerow([row.q, *_cells(row)])
    return text.getvalue().encode("utf-8-sig")


def json_file(rows: Sequence[Row]) -> bytes:
    items: list[dict[str, Any]] = [
        {
            "standard_question": row.q,
            "similar_questions": list(row.similar),
            "negative_questions": list(row.negative),
            "answers": list(row.answers),
            **({"tag": row.tag} if row.tag else {}),
        }
        for row in rows
    ]
    return json.dumps(items, ensure_ascii=False).encode()


def xlsx_file(rows: Sequence[Row]) -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(HEADERS)
    for row in rows:
        sheet.append([row.q, *_cells(row)])
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


def numbered(count: int, prefix: str = "Question") -> Iterator[Row]:
    for n in range(count):
        yield Row(f"{prefix} {n} about the harbour gate?", (f"The gate answer number {n}.",))
