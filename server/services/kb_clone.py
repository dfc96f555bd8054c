"""CloneKnowledgeBase and its progress: the source's config copied into a new knowledge
base or synced into an existing one, then a kb:clone job (workers.clone) that clones the
knowledges the target lacks and deletes the clones whose source is gone (an FAQ knowledge
base: the entries, by content hash)."""

from __future__ import annotations

from typing import Protocol

from google.protobuf import field_mask_pb2
from sluice.v1 import config_pb2, knowledge_base_pb2

from core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from core.faq_entry import faq_index_modes
from core.payloads import KbClonePlanPayload
from core.statuses import KnowledgeBaseType
from server.services.config_json import from_json
from server.services.identity import Identity
from server.services.kb_compatibility import check_compatible
from server.services.knowledge_bases import MAX_NAME_CHARS, KnowledgeBaseService
from storage.db.engine import Database
from storage.db.models import KbCloneJob, KnowledgeBase
from storage.db.repositories.clone_jobs import CloneJobRepository, CloneRunningError
from storage.db.repositories.faq_entries import FaqEntryRepository
from storage.queue.base import TaskQueue
from workers import task_specs
from workers.settings import Settings

JOB = "sluice.v1.CloneJob"
# A derived name ("<source> (copy)", "<source> (copy 2)", ...) is looked for this far.
_DERIVED_NAMES = 100


class CloneParts(Protocol):
    @property
    def db(self) -> Database: ...
    @property
    def queue(self) -> TaskQueue: ...
    @property
    def settings(self) -> Settings: ...


class KnowledgeBaseCloneService:
    def __init__(self, ctx: CloneParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._knowledge_bases = knowledge_bases
        self._jobs = CloneJobRepository(ctx.db)

    def start(
        self, identity: Identity, request: knowledge_base_pb2.CloneKnowledgeBaseRequest
    ) -> KbCloneJob:
        """The queued job. NOT_FOUND for a source or target that is not the caller's;
        FAILED_PRECONDITION for a target of another type or embedding model, for the source
        itself as target, for an FAQ target with entries indexed in other modes, and while
        another clone into it runs."""
        if not request.source_id:
            raise InvalidArgument.field("source_id", "is required")
        source = self._knowledge_bases.get_row(identity, request.source_id)
        if request.target_id:
            target = self._checked_target(identity, source, request.target_id)
            job = self._create(source, target)
            try:
                self._sync_config(identity, source, target)
            except Exception as exc:
                self._jobs.fail(job.id, f"the target's config could not be synced: {exc}")
                raise
        else:
            target = self._new_target(identity, source, request.target_name.strip())
            job = self._create(source, target)
        try:
            self._ctx.queue.enqueue(
                task_specs.kb_clone(self._ctx.settings, KbClonePlanPayload(job.id))
            )
        except Exception as exc:
            self._jobs.fail(job.id, f"the clone could not be queued: {exc}")
            raise
        return job

    def progress(self, identity: Identity, job_id: str) -> KbCloneJob:
        """NOT_FOUND alike for a job that does not exist and another tenant's."""
        job = self._jobs.get(job_id, identity.scope) if job_id else None
        if job is None:
            raise NotFound(JOB, job_id)
        return job

    def _create(self, source: KnowledgeBase, target: KnowledgeBase) -> KbCloneJob:
        """The job, taking the target's clone lock first, so two calls racing cannot both
        clone into it (nor both rewrite its config)."""
        try:
            return self._jobs.create(source.tenant_id, source.id, target.id)
        except CloneRunningError as running:
            raise _clone_running(running.job_id) from None

    def _checked_target(
        self, identity: Identity, source: KnowledgeBase, target_id: str
    ) -> KnowledgeBase:
        target = self._knowledge_bases.get_row(identity, target_id)
        if target.id == source.id:
            raise FailedPrecondition(
                "SAME_KNOWLEDGE_BASE", target.id, "a knowledge base cannot be cloned into itself"
            )
        if target.tenant_id != source.tenant_id:
            raise FailedPrecondition(
                "OTHER_TENANT", target.id, "the target belongs to another tenant than the source"
            )
        check_compatible(source, target, by_index=True)
        self._check_faq_layout(source, target)
        return target

    def _sync_config(
        self, identity: Identity, source: KnowledgeBase, target: KnowledgeBase
    ) -> None:
        update = knowledge_base_pb2.UpdateKnowledgeBaseRequest(
            id=target.id,
            config=_config_of(source),
            update_mask=field_mask_pb2.FieldMask(paths=["config"]),
        )
        self._knowledge_bases.update(identity, update)

    def _check_faq_layout(self, source: KnowledgeBase, target: KnowledgeBase) -> None:
        """An FAQ target holding entries must lay out their index rows as the source does:
        matching entries keep their rows (only their state is synced), so rows of another
        index mode would stay. Refused rather than left to differ."""
        if source.type != KnowledgeBaseType.FAQ:
            return
        theirs, ours = faq_index_modes(target.config or {}), faq_index_modes(source.config or {})
        if theirs == ours or FaqEntryRepository(self._ctx.db).page(target.id, limit=1)[1] == 0:
            return
        raise FailedPrecondition(
            "FAQ_INDEX_MODE_MISMATCH",
            target.id,
            f"the target indexes its entries {theirs.content}/{theirs.questions}, the source "
            f"{ours.content}/{ours.questions}: clone into a new or empty knowledge base",
        )

    def _new_target(self, identity: Identity, source: KnowledgeBase, name: str) -> KnowledgeBase:
        names = [name] if name else _derived_names(source.name)
        for candidate in names:
            create = knowledge_base_pb2.CreateKnowledgeBaseRequest(
                name=candidate,
                description=source.description,
                type=f"KNOWLEDGE_BASE_TYPE_{source.type.upper()}",
                config=_config_of(source),
            )
            try:
                return self._knowledge_bases.create(identity, create).row
            except AlreadyExists:
                if name:
                    raise
        raise FailedPrecondition(
            "NO_FREE_NAME",
            source.id,
            "every derived name of the clone is taken; give a target_name",
        )


def _clone_running(job_id: str) -> FailedPrecondition:
    return FailedPrecondition(
        "CLONE_RUNNING", job_id, f"clone job {job_id} into the target is running"
    )


def _config_of(source: KnowledgeBase) -> config_pb2.KnowledgeBaseConfig:
    return from_json(source.config or {}, config_pb2.KnowledgeBaseConfig())


def _derived_names(source_name: str) -> list[str]:
    name = source_name[: MAX_NAME_CHARS - len(f" (copy {_DERIVED_NAMES})")]
    return [f"{name} (copy)"] + [f"{name} (copy {n})" for n in range(2, _DERIVED_NAMES + 1)]
