"""Knowledge-base defaults merged with one upload's overrides (spec: ResolveProcessConfig).

Both sides are the JSON forms of the protobuf messages (KnowledgeBaseConfig and
ProcessConfig, field names as in the .proto), as the database stores them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core import local_models
from core.local_models import LocalModel
from core.model_configs import NO_MODEL, ChatModelConfig, VlmConfig, chosen_model, vlm_config_of
from core.parser_rules import ParserChoice, merge_rules

DEFAULT_CHUNK_SIZE = 512
DEFAULT_CHUNK_OVERLAP = 64
# AutoTagConfig.max_tags when unset, and its ceiling (the spec: 3, at most 10).
DEFAULT_AUTO_TAGS = 3
MAX_AUTO_TAGS = 10

# QuestionGenerationConfig.question_count: unset (0) means the reference's default of 3; the
# API refuses more than MAX_QUESTION_COUNT (each question is a row embedded and indexed).
DEFAULT_QUESTION_COUNT = 3
MAX_QUESTION_COUNT = 10


@dataclass(frozen=True)
class EmbeddingModel:
    provider: str
    model: str
    base_url: str
    api_key: str
    dimensions: int
    # ModelConfig.accepts_images: it embeds pictures too (not part of the vector space's key).
    accepts_images: bool = False

    @property
    def key(self) -> str:
        """Identity of the vector space: one index collection per key."""
        return f"{self.provider}/{self.model}/{self.dimensions}"


@dataclass(frozen=True)
class EffectiveConfig:
    chunk_size: int
    chunk_overlap: int
    separators: tuple[str, ...]
    enable_parent_child: bool
    parent_chunk_size: int
    child_chunk_size: int
    parser_rules: Mapping[str, ParserChoice]
    enable_multimodel: bool
    vector_enabled: bool
    keyword_enabled: bool
    summary_enabled: bool
    question_generation_enabled: bool
    graph_enabled: bool
    embedding: EmbeddingModel
    # The ASRConfig JSON ({"model": {...}, "language": ...}); the upload's model wins.
    asr: Mapping[str, Any]
    # The VLM and its caption options; the upload's model wins, as in the upload pre-check.
    vlm: VlmConfig
    # Tesseract languages for OCR; the upload's replace the knowledge base's; empty = detect.
    ocr_languages: tuple[str, ...] = ()
    # The chat models of the enrichments (NO_MODEL: none configured); an upload's question
    # and extraction models win over the knowledge base's (it has no summary or wiki ones).
    summary_model: ChatModelConfig = NO_MODEL
    # SummaryConfig.max_length, in characters (0: the summary task's default).
    summary_max_length: int = 0
    question_model: ChatModelConfig = NO_MODEL
    # Questions asked per text chunk (1..MAX_QUESTION_COUNT).
    question_count: int = DEFAULT_QUESTION_COUNT
    extract_model: ChatModelConfig = NO_MODEL
    # ExtractConfig's entity and relation types, which graph extraction is held to (empty:
    # any); the upload's lists replace the knowledge base's when it names any.
    extract_entity_types: tuple[str, ...] = ()
    extract_relation_types: tuple[str, ...] = ()
    wiki_model: ChatModelConfig = NO_MODEL
    # ImageProcessingConfig: a knowledge base that names neither switch gets both.
    image_ocr: bool = True
    image_caption: bool = True
    # ImageProcessingConfig.image_vector_enabled: pictures embedded by the embedding model.
    image_vector: bool = False
    # AutoTagConfig (the knowledge base's only; its model is the summary model): how many of
    # the knowledge base's tags at most, and whether a tagged document is tagged again.
    auto_tag_enabled: bool = False
    auto_tag_max_tags: int = DEFAULT_AUTO_TAGS
    auto_tag_retag_tagged: bool = False
    # ProfileConfig.enabled: the knowledge base's description is kept up to date.
    profile_enabled: bool = False
    # IndexingStrategy.wiki_enabled: a knowledge base setting only (the spec's
    # kb.IndexingStrategy.WikiEnabled gates the wiki subtask).
    wiki_enabled: bool = False

    @property
    def needs_embedding(self) -> bool:
        return self.vector_enabled or self.keyword_enabled

    @property
    def vlm_model(self) -> str:
        """The VLM model's name ("" = none)."""
        return self.vlm.model.model

    @property
    def asr_model(self) -> str:
        """The ASR model's name ("" = none)."""
        return _model_name(self.asr)

    def parser_choice(self, file_type: str) -> ParserChoice:
        return self.parser_rules.get(file_type, ParserChoice())


def _local(model: LocalModel) -> EmbeddingModel:
    return EmbeddingModel("local", model.name, "", "", model.dimension)


# What a new knowledge base gets (written into its stored configuration at creation).
DEFAULT_EMBEDDING = _local(local_models.DEFAULT)


def embedding_model_of(kb_config: Mapping[str, Any]) -> EmbeddingModel:
    """The model a stored configuration names. A local one without a known model name is
    the model such configurations have always meant (local_models.UNNAMED: the API took any
    name while MiniLM was the only local model), so a knowledge base keeps its vector space
    when the default for new ones changes; new ones are checked by the API."""
    raw = kb_config.get("embedding") or {}
    provider = str(raw.get("provider") or "local")
    if provider == "local":
        try:
            return _local(local_models.local_model(str(raw.get("model", ""))))
        except local_models.UnknownLocalModel:
            return _local(local_models.UNNAMED)
    return EmbeddingModel(
        provider=provider,
        model=str(raw.get("model", "")),
        base_url=str(raw.get("base_url", "")),
        api_key=str(raw.get("api_key", "")),
        dimensions=int(raw.get("dimensions", 0)),
        accepts_images=bool(raw.get("accepts_images", False)),
    )


def resolve(kb_config: Mapping[str, Any], overrides: Mapping[str, Any] | None) -> EffectiveConfig:
    over = overrides or {}
    chunking = {**(kb_config.get("chunking") or {}), **_present(over.get("chunking") or {})}
    # A configuration stored without the block means the defaults; a stored block is taken
    # as written (its false switches are left out of the JSON, so both off is `{}`).
    indexing = kb_config.get("indexing")
    if indexing is None:
        indexing = {"vector_enabled": True, "keyword_enabled": True}
    rules = [*(kb_config.get("chunking") or {}).get("parser_engine_rules", [])]
    rules += (over.get("chunking") or {}).get("parser_engine_rules", [])
    rules += over.get("parser_engine_rules", [])
    extract_enabled = bool(
        (over.get("extract") or kb_config.get("extract") or {}).get("enabled", False)
    )
    graph = bool(over.get("graph_enabled", indexing.get("graph_enabled", False)))
    question = over.get("question_generation") or kb_config.get("question_generation") or {}
    summary_default = bool((kb_config.get("summary") or {}).get("enabled", False))
    return EffectiveConfig(
        chunk_size=int(chunking.get("chunk_size") or DEFAULT_CHUNK_SIZE),
        chunk_overlap=int(chunking.get("chunk_overlap", DEFAULT_CHUNK_OVERLAP)),
        separators=tuple(chunking.get("separators") or ()),
        enable_parent_child=bool(chunking.get("enable_parent_child", False)),
        parent_chunk_size=int(chunking.get("parent_chunk_size") or 0),
        child_chunk_size=int(chunking.get("child_chunk_size") or 0),
        parser_rules=merge_rules(rules),
        enable_multimodel=bool(
            over.get("enable_multimodel", kb_config.get("enable_multimodel", False))
        ),
        vector_enabled=bool(indexing.get("vector_enabled", False)),
        keyword_enabled=bool(indexing.get("keyword_enabled", False)),
        summary_enabled=bool(over.get("summary_enabled", summary_default)),
        question_generation_enabled=bool(question.get("enabled", False)),
        # The spec: graph depends on an enabled extraction configuration.
        graph_enabled=graph and extract_enabled,
        embedding=embedding_model_of(kb_config),
        asr=_asr(kb_config.get("asr") or {}, over.get("asr") or {}),
        vlm=vlm_config_of(over.get("vlm"), kb_config.get("vlm")),
        ocr_languages=_ocr_languages(over) or _ocr_languages(kb_config),
        summary_model=chosen_model(None, kb_config.get("summary")),
        summary_max_length=max(0, int((kb_config.get("summary") or {}).get("max_length") or 0)),
        question_model=chosen_model(
            over.get("question_generation"), kb_config.get("question_generation")
        ),
        question_count=question_count_of(question),
        extract_model=chosen_model(over.get("extract"), kb_config.get("extract")),
        extract_entity_types=_listed(over.get("extract"), kb_config.get("extract"), "entity_types"),
        extract_relation_types=_listed(
            over.get("extract"), kb_config.get("extract"), "relation_types"
        ),
        wiki_model=chosen_model(None, kb_config.get("wiki"), "synthesis_model"),
        **_image_switches(kb_config.get("image_processing") or {}),
        image_vector=bool((kb_config.get("image_processing") or {}).get("image_vector_enabled")),
        **_auto_tag(kb_config.get("auto_tag") or {}),
        profile_enabled=bool((kb_config.get("profile") or {}).get("enabled", False)),
        wiki_enabled=bool(indexing.get("wiki_enabled", False)),
    )


def _auto_tag(section: Mapping[str, Any]) -> dict[str, Any]:
    """max_tags 0 (unset) is the default; anything else is held within 1..10."""
    wanted = int(section.get("max_tags") or 0)
    return {
        "auto_tag_enabled": bool(section.get("enabled", False)),
        "auto_tag_max_tags": min(MAX_AUTO_TAGS, max(1, wanted)) if wanted else DEFAULT_AUTO_TAGS,
        "auto_tag_retag_tagged": bool(section.get("retag_tagged", False)),
    }


def _listed(
    over: Mapping[str, Any] | None, kb: Mapping[str, Any] | None, name: str
) -> tuple[str, ...]:
    """A list of ExtractConfig: the upload's when it names any, else the knowledge base's;
    blanks and repeats dropped."""
    for section in (over, kb):
        found = [str(v).strip() for v in (section or {}).get(name) or ()]
        kept = tuple(dict.fromkeys(v for v in found if v))
        if kept:
            return kept
    return ()


def question_count_of(section: Mapping[str, Any]) -> int:
    """A QuestionGenerationConfig JSON's question_count: the default when unset, held to
    1..MAX_QUESTION_COUNT (a configuration stored before the API checked it)."""
    count = int(section.get("question_count") or 0)
    return min(MAX_QUESTION_COUNT, count) if count > 0 else DEFAULT_QUESTION_COUNT


def _image_switches(section: Mapping[str, Any]) -> dict[str, bool]:
    """The stored JSON leaves false switches out, so a section naming neither means the
    defaults (both on), and one naming either is taken as written."""
    if not section.get("enable_ocr") and not section.get("enable_caption"):
        return {"image_ocr": True, "image_caption": True}
    return {
        "image_ocr": bool(section.get("enable_ocr")),
        "image_caption": bool(section.get("enable_caption")),
    }


def _ocr_languages(config: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(code) for code in (config.get("ocr") or {}).get("languages") or ())


def _model_name(section: Mapping[str, Any] | None) -> str:
    """The model an ASRConfig JSON names ("" = none)."""
    return str(((section or {}).get("model") or {}).get("model") or "")


def _asr(kb_asr: Mapping[str, Any], over_asr: Mapping[str, Any]) -> dict[str, Any]:
    """The upload's ASR model when it names one (as the upload pre-check decides), else the
    knowledge base's; the language likewise."""
    over_model = over_asr.get("model") or {}
    model = over_model if over_model.get("model") else kb_asr.get("model") or {}
    language = over_asr.get("language") or kb_asr.get("language") or ""
    return {"model": dict(model), "language": str(language)}


def _present(values: Mapping[str, Any]) -> dict[str, Any]:
    """Drop override entries that mean "not set" (zero sizes, empty lists)."""
    return {k: v for k, v in values.items() if v not in (0, None, [], "") or k == "chunk_overlap"}
