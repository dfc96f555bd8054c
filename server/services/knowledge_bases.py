"""Knowledge base CRUD: validation, server defaults, the embedding model's identity."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

from google.protobuf import field_mask_pb2
from sluice.v1 import config_pb2, knowledge_base_pb2

from core.effective_config import (
    DEFAULT_AUTO_TAGS,
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    DEFAULT_EMBEDDING,
    MAX_AUTO_TAGS,
    resolve,
)
from core.errors import AlreadyExists, FailedPrecondition, InvalidArgument
from core.index_sides import index_key_of
from core.local_models import UnknownLocalModel, local_model
from core.ssrf.url_policy import UrlPolicy
from server.services.chunking_checks import check_effective_chunking
from server.services.config_json import from_json, to_json
from server.services.identity import Identity
from server.services.lookup import visible
from server.services.model_endpoints import check_model_endpoints
from server.services.ocr_checks import check_ocr_languages
from server.services.paging import Listing, requested_page
from server.services.parts import KnowledgeBaseParts
from server.services.question_checks import check_question_count
from server.services.request_limits import MAX_DESCRIPTION_CHARS, check_max_chars
from storage.db.errors import AlreadyExistsError
from storage.db.models import KnowledgeBase

MAX_NAME_CHARS = 255
EMBEDDING_PROVIDERS = frozenset({"local", "openai"})


def default_config() -> config_pb2.KnowledgeBaseConfig:
    return config_pb2.KnowledgeBaseConfig(
        chunking=config_pb2.ChunkingConfig(
            chunk_size=DEFAULT_CHUNK_SIZE, chunk_overlap=DEFAULT_CHUNK_OVERLAP
        ),
        indexing=config_pb2.IndexingStrategy(vector_enabled=True, keyword_enabled=True),
        embedding=config_pb2.ModelConfig(
            provider=DEFAULT_EMBEDDING.provider,
            model=DEFAULT_EMBEDDING.model,
            dimensions=DEFAULT_EMBEDDING.dimensions,
        ),
    )


def with_defaults(config: config_pb2.KnowledgeBaseConfig) -> config_pb2.KnowledgeBaseConfig:
    """Unset blocks take the server defaults; set blocks are kept as given."""
    merged = default_config()
    for field, _ in config.ListFields():
        target = getattr(merged, field.name)
        if field.message_type is not None and not field.is_repeated:
            target.CopyFrom(getattr(config, field.name))
        else:
            setattr(merged, field.name, getattr(config, field.name))
    if not merged.chunking.chunk_size:
        merged.chunking.chunk_size = DEFAULT_CHUNK_SIZE
    if merged.embedding.provider == "local" and not merged.embedding.model.strip():
        # Named in the stored configuration: an unnamed local model means the older one.
        merged.embedding.model = DEFAULT_EMBEDDING.model
    if not merged.chunking.HasField("chunk_overlap"):
        # Kept within int32 whatever the size (a negative one is refused by the checks).
        merged.chunking.chunk_overlap = max(
            0, min(DEFAULT_CHUNK_OVERLAP, merged.chunking.chunk_size - 1)
        )
    return merged


def validate_config(config: config_pb2.KnowledgeBaseConfig, policy: UrlPolicy) -> None:
    """INVALID_ARGUMENT naming the field: limits, the embedding model, every model endpoint
    against the SSRF ``policy``, and the OCR language codes."""
    # Checked as stored (JSON), exactly as the worker will read it.
    check_effective_chunking(to_json(config), None, "config.chunking")
    embedding = config.embedding
    if embedding.provider not in EMBEDDING_PROVIDERS:
        raise InvalidArgument.field(
            "config.embedding.provider", f"must be one of {sorted(EMBEDDING_PROVIDERS)}"
        )
    if embedding.provider == "local":
        try:
            shipped = local_model(embedding.model)
        except UnknownLocalModel as exc:
            raise InvalidArgument.field("config.embedding.model", str(exc)) from exc
        if embedding.dimensions not in (0, shipped.dimension):
            raise InvalidArgument.field(
                "config.embedding.dimensions", f"{shipped.name} makes {shipped.dimension}"
            )
        if embedding.accepts_images:
            raise InvalidArgument.field(
                "config.embedding.accepts_images", f"{shipped.name} embeds text only"
            )
    else:
        for name in ("model", "base_url"):
            if not getattr(embedding, name):
                raise InvalidArgument.field(f"config.embedding.{name}", "is required")
        if embedding.dimensions <= 0:
            raise InvalidArgument.field("config.embedding.dimensions", "must be > 0")
    if config.image_processing.image_vector_enabled and not embedding.accepts_images:
        raise InvalidArgument.field(
            "config.image_processing.image_vector_enabled",
            "needs an embedding model that embeds images (config.embedding.accepts_images)",
        )
    if not 0 <= config.auto_tag.max_tags <= MAX_AUTO_TAGS:
        raise InvalidArgument.field(
            "config.auto_tag.max_tags",
            f"must be 1 to {MAX_AUTO_TAGS}, or 0 for the default ({DEFAULT_AUTO_TAGS})",
        )
    check_model_endpoints(config, "config", policy)
    check_ocr_languages(config.ocr.languages, "config.ocr.languages")
    check_question_count(config.question_generation, "config.question_generation")


@dataclass(frozen=True)
class CountedKnowledgeBase:
    """A knowledge base as a reply shows it: the row and how many knowledges it holds."""

    row: KnowledgeBase
    knowledge_count: int = 0


class KnowledgeBaseService:
    def __init__(self, ctx: KnowledgeBaseParts) -> None:
        self._ctx = ctx

    def create(
        self, identity: Identity, request: knowledge_base_pb2.CreateKnowledgeBaseRequest
    ) -> CountedKnowledgeBase:
        name = _checked_name(request.name)
        check_max_chars(request.description, MAX_DESCRIPTION_CHARS, "description")
        config = with_defaults(request.config)
        validate_config(config, self._ctx.settings.url_policy)
        self._check_storage_backend(config)
        stored = to_json(config)
        kb_type = knowledge_base_pb2.KnowledgeBaseType.Name(request.type or 1)
        try:
            row = self._ctx.knowledge_bases.create(
                tenant_id=identity.tenant_id,
                name=name,
                description=request.description,
                type=kb_type.removeprefix("KNOWLEDGE_BASE_TYPE_").lower(),
                config=stored,
                embedding_model_key=index_key_of(stored),
                storage_backend_id=config.storage.backend_id,
            )
        except AlreadyExistsError as exc:
            raise AlreadyExists(
                "sluice.v1.KnowledgeBase", name, f"a knowledge base named {name!r} exists"
            ) from exc
        return CountedKnowledgeBase(row)

    def get_row(self, identity: Identity, kb_id: str) -> KnowledgeBase:
        row = self._ctx.knowledge_bases.get(identity.scope, kb_id) if kb_id else None
        return visible(identity, row, "sluice.v1.KnowledgeBase", kb_id)

    def get(self, identity: Identity, kb_id: str) -> CountedKnowledgeBase:
        return self._counted(self.get_row(identity, kb_id))

    def list(
        self, identity: Identity, page_size: int, page_token: str
    ) -> Listing[CountedKnowledgeBase]:
        page = requested_page(page_size, page_token, f"knowledge_bases:{identity.tenant_id}")
        rows, total = self._ctx.knowledge_bases.list(identity.tenant_id, page.limit, page.offset)
        return Listing([self._counted(r) for r in rows], total, page)

    def _counted(self, row: KnowledgeBase) -> CountedKnowledgeBase:
        return CountedKnowledgeBase(row, self._ctx.knowledge_bases.count_knowledges(row.id))

    def update(
        self, identity: Identity, request: knowledge_base_pb2.UpdateKnowledgeBaseRequest
    ) -> CountedKnowledgeBase:
        row = self.get_row(identity, request.id)
        paths = list(request.update_mask.paths) or ["name", "description", "config"]
        current = from_json(row.config, config_pb2.KnowledgeBaseConfig())
        fields: dict[str, Any] = {}
        config_paths: builtins.list[str] = [
            p.removeprefix("config.") for p in paths if p.startswith("config")
        ]
        if config_paths:
            merged = self._merged_config(current, request.config, config_paths)
            fields["config"] = to_json(merged)
            fields["embedding_model_key"] = self._index_key(row, fields["config"])
            # Files stored so far stay where they are (their paths name their backend).
            fields["storage_backend_id"] = merged.storage.backend_id
        if "name" in paths:
            fields["name"] = _checked_name(request.name)
        if "description" in paths:
            check_max_chars(request.description, MAX_DESCRIPTION_CHARS, "description")
            fields["description"] = request.description
        self._ctx.knowledge_bases.update(identity.scope, row.id, **fields)
        return self.get(identity, row.id)

    def _merged_config(
        self,
        current: config_pb2.KnowledgeBaseConfig,
        incoming: config_pb2.KnowledgeBaseConfig,
        paths: builtins.list[str],
    ) -> config_pb2.KnowledgeBaseConfig:
        if "config" in paths:
            merged = with_defaults(incoming)
            if not incoming.HasField("embedding"):
                # Fixed at creation: a replacement that leaves it out keeps it, rather than
                # taking today's default for new knowledge bases.
                merged.embedding.CopyFrom(current.embedding)
            if not incoming.HasField("indexing") and current.HasField("indexing"):
                merged.indexing.CopyFrom(current.indexing)  # likewise (see _index_key)
        else:
            merged = config_pb2.KnowledgeBaseConfig()
            merged.CopyFrom(current)
            field_mask_pb2.FieldMask(paths=paths).MergeMessage(incoming, merged)
        validate_config(merged, self._ctx.settings.url_policy)
        self._check_storage_backend(merged)
        if merged.embedding != current.embedding:
            # Vectors of another model live in another space: changing it would orphan them.
            raise FailedPrecondition(
                "EMBEDDING_MODEL_FIXED",
                "config.embedding",
                "the embedding model of a knowledge base cannot change; create a new one",
            )
        return merged

    def _index_key(self, row: KnowledgeBase, config: dict[str, Any]) -> str:
        """The index collection key of the new configuration. The vector and keyword
        switches decide where the knowledge base's rows are and which searches it answers
        (core.index_sides), so once it holds documents they are fixed, like the embedding
        model: indexed documents would otherwise be searched on a side they were never
        written to, or left in a collection no search reads. An empty knowledge base may
        change them. wiki_enabled and graph_enabled gate enrichment subtasks and may change
        at any time: they apply to the rounds (uploads, reparses) that start afterwards."""
        if _switches(config) == _switches(row.config or {}):
            return str(row.embedding_model_key)
        if self._ctx.knowledge_bases.count_knowledges(row.id):
            raise FailedPrecondition(
                "INDEXING_FIXED",
                "config.indexing",
                "vector_enabled and keyword_enabled cannot change while the knowledge base "
                "holds documents; delete them first or create a new knowledge base",
            )
        return index_key_of(config)

    def storage_backend_of(self, row: KnowledgeBase) -> str:
        """The storage backend the knowledge base's new files go to ("" = the default);
        FAILED_PRECONDITION if it is bound to a backend no longer configured."""
        backend_id: str = row.storage_backend_id or ""
        if backend_id and backend_id not in self._ctx.files.backend_ids:
            raise FailedPrecondition(
                "STORAGE_BACKEND_NOT_CONFIGURED",
                row.id,
                f"the knowledge base is bound to storage backend {backend_id!r}, which this "
                f"deployment does not configure (configured: {_known_backends(self._ctx)})",
            )
        return backend_id

    def _check_storage_backend(self, config: config_pb2.KnowledgeBaseConfig) -> None:
        backend_id = config.storage.backend_id
        if backend_id and backend_id not in self._ctx.files.backend_ids:
            raise InvalidArgument.field(
                "config.storage.backend_id",
                f"unknown storage backend {backend_id!r}; configured: "
                f"{_known_backends(self._ctx)} (or empty for the default)",
            )

    def delete(self, identity: Identity, kb_id: str) -> None:
        row = self.get_row(identity, kb_id)
        if self._ctx.knowledge_bases.count_knowledges(row.id):
            raise FailedPrecondition(
                "KNOWLEDGE_BASE_NOT_EMPTY",
                kb_id,
                "the knowledge base still has knowledges; delete them first",
            )
        self._ctx.knowledge_bases.delete(identity.scope, row.id)


def _checked_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME_CHARS:
        raise InvalidArgument.field("name", f"is required and at most {MAX_NAME_CHARS} characters")
    return name


def _switches(config: dict[str, Any]) -> tuple[bool, bool]:
    resolved = resolve(config, None)
    return resolved.vector_enabled, resolved.keyword_enabled


def _known_backends(ctx: KnowledgeBaseParts) -> str:
    return ", ".join(ctx.files.backend_ids)
