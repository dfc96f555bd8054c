"""Creating knowledges: gate, pre-checks, dedup, stored file, initial row, enqueue.

A URL knowledge gets the same gate and pre-checks with nothing stored yet: the worker fetches
it (see ``create_from_url``). Every kind checks its title and channel against their columns,
so a value too long is INVALID_ARGUMENT rather than a database error.

The order follows the spec: check the extension → (stream to storage while hashing) →
dedup by MD5 + type or name + size + type → publish the file → row pending/disabled →
document:process. If enqueueing fails the row is marked failed; the file stays so a
reparse can retry.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sluice.v1 import config_pb2, knowledge_pb2

from core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from core.extensions import (
    WEB_PAGE_TYPE,
    UnsupportedFileType,
    file_type_of,
    validate_import_file_type,
)
from core.ssrf.url_policy import UrlPolicy
from core.statuses import EnableStatus, KnowledgeType, ParseStatus, SummaryStatus
from server.services.chunking_checks import check_effective_chunking
from server.services.config_json import from_json
from server.services.identity import Identity
from server.services.kb_types import document_kb
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.lookup import visible
from server.services.overrides import checked_overrides, precheck_models
from server.services.parts import IngestParts
from server.services.request_limits import check_file_name, check_metadata
from server.services.tags import TaggedKnowledge, checked_tag_ids, tagged
from server.services.url_import import checked_import_url
from storage.db.models import Knowledge, KnowledgeBase
from storage.db.models.knowledge import CHANNEL_MAX_CHARS, TITLE_MAX_CHARS
from storage.db.repositories.resources import KNOWLEDGE_ORIGINAL
from storage.files.base import StoredFile, Upload
from storage.files.keys import content_type_of, safe_file_name
from workers.lifecycle.enqueue import enqueue_processing
from workers.pipeline.download_gate import planned_download
from workers.pipeline.reading.url_source import placeholder_title


@dataclass(frozen=True)
class UploadPlan:
    """What the header frame decided before any byte is stored."""

    tenant_id: str
    knowledge_base_id: str
    knowledge_id: str
    file_name: str
    file_type: str
    title: str
    channel: str
    metadata: dict[str, str]
    enable_multimodel: bool
    overrides: dict[str, Any] = field(default_factory=dict)
    # Checked to be the knowledge base's tags: linked when the row is inserted.
    tag_ids: list[str] = field(default_factory=list)
    # Where the file is stored: the knowledge base's backend instance ("" = the default).
    storage_backend_id: str = ""


class IngestService:
    def __init__(self, ctx: IngestParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases

    def plan_upload(self, identity: Identity, header: knowledge_pb2.FileHeader) -> UploadPlan:
        if not header.file_name.strip():
            raise InvalidArgument.field("header.file_name", "is required")
        check_file_name(header.file_name.strip(), "header.file_name")
        check_metadata(header.metadata, "header.metadata")
        # Directories and control characters never reach the row or the storage key.
        file_name = safe_file_name(header.file_name.strip())
        try:
            file_type = validate_import_file_type(file_name)
        except UnsupportedFileType as exc:
            raise InvalidArgument.field("header.file_name", str(exc)) from exc
        title = header.title.strip()
        _check_labels(title, header.channel, "header.")
        kb = document_kb(self._kbs.get_row(identity, header.knowledge_base_id))
        overrides, multimodal = _processing_choice(
            kb, header, file_type, "header.process_config", self._ctx.settings.url_policy
        )
        # Before any byte is stored: an unknown tag leaves nothing behind.
        tag_ids = checked_tag_ids(self._ctx.tags, kb.id, header.tag_ids, "header.tag_ids")
        return UploadPlan(
            tenant_id=kb.tenant_id,
            knowledge_base_id=kb.id,
            knowledge_id=str(uuid.uuid4()),
            file_name=file_name,
            file_type=file_type,
            title=title or file_name,
            channel=header.channel,
            metadata=dict(header.metadata),
            enable_multimodel=multimodal,
            overrides=overrides,
            tag_ids=tag_ids,
            storage_backend_id=self._kbs.storage_backend_of(kb),
        )

    def begin_upload(self, plan: UploadPlan) -> Upload:
        """Where the file's bytes go: the knowledge base's own backend instance when it is
        bound to one."""
        files = self._ctx.files.for_backend(plan.storage_backend_id)
        return files.begin_upload(plan.tenant_id, plan.knowledge_id, plan.file_name)

    def finish_upload(self, plan: UploadPlan, upload: Upload) -> TaggedKnowledge:
        """Dedup against what was received, then publish the file and enqueue."""
        existing = self._ctx.knowledges.find_duplicate(
            plan.tenant_id,
            plan.knowledge_base_id,
            file_hash=upload.md5_hex,
            file_type=plan.file_type,
            file_name=plan.file_name,
            file_size=upload.size,
        )
        if existing is not None:
            upload.abort()
            raise self._duplicate(plan, existing)
        stored = upload.commit()
        # The row keeps the catalog's stable reference, not the path: storage may move. A
        # duplicate or a failed insert (the knowledge base deleted meanwhile, the database
        # down) removes the file and its record again.
        with self._ctx.catalog.registered(
            stored.path,
            tenant_id=plan.tenant_id,
            size=stored.size,
            content_type=content_type_of(plan.file_name),
            owner_type=KNOWLEDGE_ORIGINAL,
            owner_id=plan.knowledge_id,
        ) as original:
            row, created = self._insert(plan, stored, original.ref)
            if not created:
                raise self._duplicate(plan, row)
        return self._enqueue(row, plan.tag_ids)

    def _insert(
        self, plan: UploadPlan, stored: StoredFile, file_path: str
    ) -> tuple[Knowledge, bool]:
        """The knowledge row and its tag links, unless a duplicate exists: checked again
        atomically with the insert, as an identical upload may have finished while this one
        was published."""
        return self._ctx.knowledges.create_unless_duplicate(
            tag_ids=plan.tag_ids,
            id=plan.knowledge_id,
            tenant_id=plan.tenant_id,
            knowledge_base_id=plan.knowledge_base_id,
            type=KnowledgeType.FILE,
            title=plan.title,
            file_name=plan.file_name,
            file_type=plan.file_type,
            file_size=stored.size,
            file_hash=stored.md5,
            file_path=file_path,
            storage_size=stored.size,
            parse_status=ParseStatus.PENDING,
            enable_status=EnableStatus.DISABLED,
            summary_status=SummaryStatus.NONE,
            meta=plan.metadata,
            channel=plan.channel,
            attempt=1,
            process_overrides=plan.overrides,
            enable_multimodel=plan.enable_multimodel,
        )

    def create_from_url(
        self, identity: Identity, request: knowledge_pb2.CreateFromURLRequest
    ) -> TaggedKnowledge:
        """A URL knowledge, fetched later by the worker: the caller's access to the
        knowledge base, the SSRF check (the service's own, whoever called it), the gate's
        verdict — a file to download or a web page — the pre-checks an upload of that type
        gets, then the row unless the knowledge base already imports this URL (normalized;
        failed and deleting rows do not count)."""
        kb = document_kb(self._kbs.get_row(identity, request.knowledge_base_id))
        url = checked_import_url(request.url, self._ctx.settings)
        _check_labels(request.title.strip(), request.channel)
        check_file_name(request.file_name.strip(), "file_name")
        try:
            download = planned_download(url.normalized, request.file_name, request.file_type)
        except UnsupportedFileType as exc:
            raise InvalidArgument.field(_gate_field(request), str(exc)) from exc
        # A page without a given title shows its URL until the worker reads its <title>.
        default_title = download.file_name if download else placeholder_title(url.normalized)
        file_type = download.file_type if download is not None else WEB_PAGE_TYPE
        overrides, multimodal = _processing_choice(
            kb, request, file_type, "process_config", self._ctx.settings.url_policy
        )
        tag_ids = checked_tag_ids(self._ctx.tags, kb.id, request.tag_ids, "tag_ids")
        # Its backend must still be configured: a download is stored there, a page's images.
        self._kbs.storage_backend_of(kb)
        row, created = self._ctx.knowledges.create_unless_url_duplicate(
            tag_ids=tag_ids,
            id=str(uuid.uuid4()),
            tenant_id=kb.tenant_id,
            knowledge_base_id=kb.id,
            type=KnowledgeType.URL,
            source=url.normalized,
            title=request.title.strip() or default_title,
            file_name=download.file_name if download is not None else "",
            file_type=file_type,
            parse_status=ParseStatus.PENDING,
            enable_status=EnableStatus.DISABLED,
            summary_status=SummaryStatus.NONE,
            channel=request.channel,
            attempt=1,
            process_overrides=overrides,
            enable_multimodel=multimodal,
        )
        if not created:
            raise AlreadyExists(
                "sluice.v1.Knowledge",
                row.id,
                f"URL {url.normalized!r} is already imported into this knowledge base as "
                f"knowledge {row.id}",
                tagged(self._ctx.tags, row),
            )
        return self._enqueue(row, tag_ids)

    def create_manual(
        self, identity: Identity, request: knowledge_pb2.CreateManualRequest
    ) -> TaggedKnowledge:
        kb = document_kb(self._kbs.get_row(identity, request.knowledge_base_id))
        if not request.title.strip():
            raise InvalidArgument.field("title", "is required")
        _check_labels(request.title.strip(), request.channel)
        publish = request.status == knowledge_pb2.MANUAL_STATUS_PUBLISH
        if publish and not request.content.strip():
            raise InvalidArgument.field("content", "is required to publish")
        tag_ids = checked_tag_ids(self._ctx.tags, kb.id, request.tag_ids, "tag_ids")
        row = self._ctx.knowledges.create(
            tag_ids=tag_ids,
            id=str(uuid.uuid4()),
            tenant_id=kb.tenant_id,
            knowledge_base_id=kb.id,
            type=KnowledgeType.MANUAL,
            title=request.title.strip(),
            content=request.content,
            file_type="md",
            file_size=len(request.content.encode()),
            parse_status=ParseStatus.PENDING if publish else ParseStatus.DRAFT,
            enable_status=EnableStatus.DISABLED,
            summary_status=SummaryStatus.NONE,
            channel=request.channel,
            attempt=1 if publish else 0,
            process_overrides=checked_overrides(
                request.process_config,
                "process_config",
                kb.config or {},
                self._ctx.settings.url_policy,
            ),
        )
        return self._enqueue(row, tag_ids) if publish else TaggedKnowledge(row, tag_ids)

    def update_manual(
        self, identity: Identity, request: knowledge_pb2.UpdateManualRequest
    ) -> TaggedKnowledge:
        """Title, content and publishing; the tags stay as created (the request has none)."""
        row = self._ctx.knowledges.get(request.id, identity.scope)
        manual = row if row is not None and row.type == KnowledgeType.MANUAL else None
        row = visible(identity, manual, "sluice.v1.Knowledge", request.id)
        fields: dict[str, Any] = {}
        if request.title.strip():
            _check_labels(request.title.strip(), "")
            fields["title"] = request.title.strip()
        if request.content:
            fields["content"] = request.content
            fields["file_size"] = len(request.content.encode())
        if request.status != knowledge_pb2.MANUAL_STATUS_PUBLISH:
            if fields:
                self._ctx.knowledges.update_fields(row.id, **fields)
            return TaggedKnowledge(self._reread(row), self._tag_ids_of(row))
        if row.parse_status != ParseStatus.DRAFT:
            raise FailedPrecondition(
                "NOT_A_DRAFT", row.id, f"knowledge is {row.parse_status}, not a draft; use Reparse"
            )
        if not (fields.get("content") or row.content or "").strip():
            raise InvalidArgument.field("content", "is required to publish")
        # The knowledge base's config may have changed since the draft was saved.
        kb = self._kbs.get_row(identity, row.knowledge_base_id)
        check_effective_chunking(
            kb.config or {}, row.process_overrides or {}, "process_config.chunking"
        )
        attempt = self._ctx.knowledges.next_attempt(row.id)
        if not self._ctx.knowledges.transition(
            row.id,
            from_statuses=(ParseStatus.DRAFT,),
            to_status=ParseStatus.PENDING,
            attempt=attempt,
            **fields,
        ):
            raise FailedPrecondition("NOT_A_DRAFT", row.id, "knowledge was published meanwhile")
        return self._enqueue(self._reread(row), self._tag_ids_of(row))

    def _enqueue(self, row: Knowledge, tag_ids: list[str]) -> TaggedKnowledge:
        """Answer with the row as it was queued (pending), so the reply does not depend on
        how fast a worker picks it up; a refused enqueue is re-read to show the failure."""
        if enqueue_processing(self._ctx, row):
            return TaggedKnowledge(row, tag_ids)
        return TaggedKnowledge(self._reread(row), tag_ids)

    def _reread(self, row: Knowledge) -> Knowledge:
        """The row as stored now; NOT_FOUND when it vanished meanwhile (deleted)."""
        fresh = self._ctx.knowledges.get(row.id, row.tenant_id)
        if fresh is None:
            raise NotFound("sluice.v1.Knowledge", row.id)
        return fresh

    def _tag_ids_of(self, row: Knowledge) -> list[str]:
        return self._ctx.tags.tags_of([row.id], tenant_id=row.tenant_id)[row.id]

    def _duplicate(self, plan: UploadPlan, existing: Knowledge) -> AlreadyExists:
        return AlreadyExists(
            "sluice.v1.Knowledge",
            existing.id,
            f"file {plan.file_name!r} already exists in this knowledge base as knowledge "
            f"{existing.id}",
            tagged(self._ctx.tags, existing),
        )


def _processing_choice(
    kb: KnowledgeBase,
    request: knowledge_pb2.FileHeader | knowledge_pb2.CreateFromURLRequest,
    file_type: str,
    field: str,
    policy: UrlPolicy,
) -> tuple[dict[str, Any], bool]:
    """The overrides as stored and whether multimodal processing is on, after the checks
    upload and URL import share (spec: resolveFileImportProcessConfig)."""
    overrides = checked_overrides(request.process_config, field, kb.config or {}, policy)
    kb_config = from_json(kb.config, config_pb2.KnowledgeBaseConfig())
    multimodal = (
        request.enable_multimodel
        if request.HasField("enable_multimodel")
        else kb_config.enable_multimodel
    )
    precheck_models(file_type, multimodal, kb_config, request.process_config)
    return overrides, multimodal


def _check_labels(title: str, channel: str, prefix: str = "") -> None:
    """INVALID_ARGUMENT for a title or channel (as stored) too long for its column."""
    for field_name, value, limit in (
        ("title", title, TITLE_MAX_CHARS),
        ("channel", channel, CHANNEL_MAX_CHARS),
    ):
        if len(value) > limit:
            raise InvalidArgument.field(
                f"{prefix}{field_name}", f"is longer than {limit} characters"
            )


def _gate_field(request: knowledge_pb2.CreateFromURLRequest) -> str:
    """The request field whose value the gate refused."""
    if request.file_type.strip():
        return "file_type"
    return "file_name" if file_type_of(request.file_name) else "url"
