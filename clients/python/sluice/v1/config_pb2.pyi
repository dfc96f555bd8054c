from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FAQIndexMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAQ_INDEX_MODE_UNSPECIFIED: _ClassVar[FAQIndexMode]
    FAQ_INDEX_MODE_QUESTION_ONLY: _ClassVar[FAQIndexMode]
    FAQ_INDEX_MODE_QUESTION_ANSWER: _ClassVar[FAQIndexMode]

class FAQQuestionIndexMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAQ_QUESTION_INDEX_MODE_UNSPECIFIED: _ClassVar[FAQQuestionIndexMode]
    FAQ_QUESTION_INDEX_MODE_COMBINED: _ClassVar[FAQQuestionIndexMode]
    FAQ_QUESTION_INDEX_MODE_SEPARATE: _ClassVar[FAQQuestionIndexMode]
FAQ_INDEX_MODE_UNSPECIFIED: FAQIndexMode
FAQ_INDEX_MODE_QUESTION_ONLY: FAQIndexMode
FAQ_INDEX_MODE_QUESTION_ANSWER: FAQIndexMode
FAQ_QUESTION_INDEX_MODE_UNSPECIFIED: FAQQuestionIndexMode
FAQ_QUESTION_INDEX_MODE_COMBINED: FAQQuestionIndexMode
FAQ_QUESTION_INDEX_MODE_SEPARATE: FAQQuestionIndexMode

class ModelConfig(_message.Message):
    __slots__ = ("provider", "model", "base_url", "api_key", "dimensions", "accepts_images")
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    DIMENSIONS_FIELD_NUMBER: _ClassVar[int]
    ACCEPTS_IMAGES_FIELD_NUMBER: _ClassVar[int]
    provider: str
    model: str
    base_url: str
    api_key: str
    dimensions: int
    accepts_images: bool
    def __init__(self, provider: _Optional[str] = ..., model: _Optional[str] = ..., base_url: _Optional[str] = ..., api_key: _Optional[str] = ..., dimensions: _Optional[int] = ..., accepts_images: _Optional[bool] = ...) -> None: ...

class ParserEngineRule(_message.Message):
    __slots__ = ("file_type", "engine", "options")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    file_type: str
    engine: str
    options: _containers.ScalarMap[str, str]
    def __init__(self, file_type: _Optional[str] = ..., engine: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ChunkingConfig(_message.Message):
    __slots__ = ("chunk_size", "chunk_overlap", "separators", "enable_parent_child", "parent_chunk_size", "child_chunk_size", "parser_engine_rules")
    CHUNK_SIZE_FIELD_NUMBER: _ClassVar[int]
    CHUNK_OVERLAP_FIELD_NUMBER: _ClassVar[int]
    SEPARATORS_FIELD_NUMBER: _ClassVar[int]
    ENABLE_PARENT_CHILD_FIELD_NUMBER: _ClassVar[int]
    PARENT_CHUNK_SIZE_FIELD_NUMBER: _ClassVar[int]
    CHILD_CHUNK_SIZE_FIELD_NUMBER: _ClassVar[int]
    PARSER_ENGINE_RULES_FIELD_NUMBER: _ClassVar[int]
    chunk_size: int
    chunk_overlap: int
    separators: _containers.RepeatedScalarFieldContainer[str]
    enable_parent_child: bool
    parent_chunk_size: int
    child_chunk_size: int
    parser_engine_rules: _containers.RepeatedCompositeFieldContainer[ParserEngineRule]
    def __init__(self, chunk_size: _Optional[int] = ..., chunk_overlap: _Optional[int] = ..., separators: _Optional[_Iterable[str]] = ..., enable_parent_child: _Optional[bool] = ..., parent_chunk_size: _Optional[int] = ..., child_chunk_size: _Optional[int] = ..., parser_engine_rules: _Optional[_Iterable[_Union[ParserEngineRule, _Mapping]]] = ...) -> None: ...

class IndexingStrategy(_message.Message):
    __slots__ = ("vector_enabled", "keyword_enabled", "wiki_enabled", "graph_enabled")
    VECTOR_ENABLED_FIELD_NUMBER: _ClassVar[int]
    KEYWORD_ENABLED_FIELD_NUMBER: _ClassVar[int]
    WIKI_ENABLED_FIELD_NUMBER: _ClassVar[int]
    GRAPH_ENABLED_FIELD_NUMBER: _ClassVar[int]
    vector_enabled: bool
    keyword_enabled: bool
    wiki_enabled: bool
    graph_enabled: bool
    def __init__(self, vector_enabled: _Optional[bool] = ..., keyword_enabled: _Optional[bool] = ..., wiki_enabled: _Optional[bool] = ..., graph_enabled: _Optional[bool] = ...) -> None: ...

class VLMConfig(_message.Message):
    __slots__ = ("model", "description_language", "custom_instructions")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    model: ModelConfig
    description_language: str
    custom_instructions: str
    def __init__(self, model: _Optional[_Union[ModelConfig, _Mapping]] = ..., description_language: _Optional[str] = ..., custom_instructions: _Optional[str] = ...) -> None: ...

class ASRConfig(_message.Message):
    __slots__ = ("model", "language")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    model: ModelConfig
    language: str
    def __init__(self, model: _Optional[_Union[ModelConfig, _Mapping]] = ..., language: _Optional[str] = ...) -> None: ...

class QuestionGenerationConfig(_message.Message):
    __slots__ = ("enabled", "question_count", "model")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    QUESTION_COUNT_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    question_count: int
    model: ModelConfig
    def __init__(self, enabled: _Optional[bool] = ..., question_count: _Optional[int] = ..., model: _Optional[_Union[ModelConfig, _Mapping]] = ...) -> None: ...

class ExtractConfig(_message.Message):
    __slots__ = ("enabled", "model", "entity_types", "relation_types")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    ENTITY_TYPES_FIELD_NUMBER: _ClassVar[int]
    RELATION_TYPES_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    model: ModelConfig
    entity_types: _containers.RepeatedScalarFieldContainer[str]
    relation_types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, enabled: _Optional[bool] = ..., model: _Optional[_Union[ModelConfig, _Mapping]] = ..., entity_types: _Optional[_Iterable[str]] = ..., relation_types: _Optional[_Iterable[str]] = ...) -> None: ...

class SummaryConfig(_message.Message):
    __slots__ = ("enabled", "model", "max_length")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    MAX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    model: ModelConfig
    max_length: int
    def __init__(self, enabled: _Optional[bool] = ..., model: _Optional[_Union[ModelConfig, _Mapping]] = ..., max_length: _Optional[int] = ...) -> None: ...

class WikiConfig(_message.Message):
    __slots__ = ("synthesis_model",)
    SYNTHESIS_MODEL_FIELD_NUMBER: _ClassVar[int]
    synthesis_model: ModelConfig
    def __init__(self, synthesis_model: _Optional[_Union[ModelConfig, _Mapping]] = ...) -> None: ...

class AutoTagConfig(_message.Message):
    __slots__ = ("enabled", "max_tags", "retag_tagged")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    MAX_TAGS_FIELD_NUMBER: _ClassVar[int]
    RETAG_TAGGED_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    max_tags: int
    retag_tagged: bool
    def __init__(self, enabled: _Optional[bool] = ..., max_tags: _Optional[int] = ..., retag_tagged: _Optional[bool] = ...) -> None: ...

class FAQConfig(_message.Message):
    __slots__ = ("index_mode", "question_index_mode")
    INDEX_MODE_FIELD_NUMBER: _ClassVar[int]
    QUESTION_INDEX_MODE_FIELD_NUMBER: _ClassVar[int]
    index_mode: FAQIndexMode
    question_index_mode: FAQQuestionIndexMode
    def __init__(self, index_mode: _Optional[_Union[FAQIndexMode, str]] = ..., question_index_mode: _Optional[_Union[FAQQuestionIndexMode, str]] = ...) -> None: ...

class OcrConfig(_message.Message):
    __slots__ = ("languages",)
    LANGUAGES_FIELD_NUMBER: _ClassVar[int]
    languages: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, languages: _Optional[_Iterable[str]] = ...) -> None: ...

class ImageProcessingConfig(_message.Message):
    __slots__ = ("enable_ocr", "enable_caption", "image_vector_enabled")
    ENABLE_OCR_FIELD_NUMBER: _ClassVar[int]
    ENABLE_CAPTION_FIELD_NUMBER: _ClassVar[int]
    IMAGE_VECTOR_ENABLED_FIELD_NUMBER: _ClassVar[int]
    enable_ocr: bool
    enable_caption: bool
    image_vector_enabled: bool
    def __init__(self, enable_ocr: _Optional[bool] = ..., enable_caption: _Optional[bool] = ..., image_vector_enabled: _Optional[bool] = ...) -> None: ...

class StorageConfig(_message.Message):
    __slots__ = ("backend_id",)
    BACKEND_ID_FIELD_NUMBER: _ClassVar[int]
    backend_id: str
    def __init__(self, backend_id: _Optional[str] = ...) -> None: ...

class ProfileConfig(_message.Message):
    __slots__ = ("enabled",)
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    def __init__(self, enabled: _Optional[bool] = ...) -> None: ...

class KnowledgeBaseConfig(_message.Message):
    __slots__ = ("chunking", "indexing", "embedding", "vlm", "asr", "question_generation", "extract", "summary", "wiki", "auto_tag", "faq", "image_processing", "storage", "profile", "enable_multimodel", "ocr")
    CHUNKING_FIELD_NUMBER: _ClassVar[int]
    INDEXING_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    VLM_FIELD_NUMBER: _ClassVar[int]
    ASR_FIELD_NUMBER: _ClassVar[int]
    QUESTION_GENERATION_FIELD_NUMBER: _ClassVar[int]
    EXTRACT_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    WIKI_FIELD_NUMBER: _ClassVar[int]
    AUTO_TAG_FIELD_NUMBER: _ClassVar[int]
    FAQ_FIELD_NUMBER: _ClassVar[int]
    IMAGE_PROCESSING_FIELD_NUMBER: _ClassVar[int]
    STORAGE_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_MULTIMODEL_FIELD_NUMBER: _ClassVar[int]
    OCR_FIELD_NUMBER: _ClassVar[int]
    chunking: ChunkingConfig
    indexing: IndexingStrategy
    embedding: ModelConfig
    vlm: VLMConfig
    asr: ASRConfig
    question_generation: QuestionGenerationConfig
    extract: ExtractConfig
    summary: SummaryConfig
    wiki: WikiConfig
    auto_tag: AutoTagConfig
    faq: FAQConfig
    image_processing: ImageProcessingConfig
    storage: StorageConfig
    profile: ProfileConfig
    enable_multimodel: bool
    ocr: OcrConfig
    def __init__(self, chunking: _Optional[_Union[ChunkingConfig, _Mapping]] = ..., indexing: _Optional[_Union[IndexingStrategy, _Mapping]] = ..., embedding: _Optional[_Union[ModelConfig, _Mapping]] = ..., vlm: _Optional[_Union[VLMConfig, _Mapping]] = ..., asr: _Optional[_Union[ASRConfig, _Mapping]] = ..., question_generation: _Optional[_Union[QuestionGenerationConfig, _Mapping]] = ..., extract: _Optional[_Union[ExtractConfig, _Mapping]] = ..., summary: _Optional[_Union[SummaryConfig, _Mapping]] = ..., wiki: _Optional[_Union[WikiConfig, _Mapping]] = ..., auto_tag: _Optional[_Union[AutoTagConfig, _Mapping]] = ..., faq: _Optional[_Union[FAQConfig, _Mapping]] = ..., image_processing: _Optional[_Union[ImageProcessingConfig, _Mapping]] = ..., storage: _Optional[_Union[StorageConfig, _Mapping]] = ..., profile: _Optional[_Union[ProfileConfig, _Mapping]] = ..., enable_multimodel: _Optional[bool] = ..., ocr: _Optional[_Union[OcrConfig, _Mapping]] = ...) -> None: ...

class ProcessConfig(_message.Message):
    __slots__ = ("chunking", "enable_multimodel", "vlm", "asr", "question_generation", "graph_enabled", "extract", "parser_engine_rules", "summary_enabled", "ocr")
    CHUNKING_FIELD_NUMBER: _ClassVar[int]
    ENABLE_MULTIMODEL_FIELD_NUMBER: _ClassVar[int]
    VLM_FIELD_NUMBER: _ClassVar[int]
    ASR_FIELD_NUMBER: _ClassVar[int]
    QUESTION_GENERATION_FIELD_NUMBER: _ClassVar[int]
    GRAPH_ENABLED_FIELD_NUMBER: _ClassVar[int]
    EXTRACT_FIELD_NUMBER: _ClassVar[int]
    PARSER_ENGINE_RULES_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_ENABLED_FIELD_NUMBER: _ClassVar[int]
    OCR_FIELD_NUMBER: _ClassVar[int]
    chunking: ChunkingConfig
    enable_multimodel: bool
    vlm: VLMConfig
    asr: ASRConfig
    question_generation: QuestionGenerationConfig
    graph_enabled: bool
    extract: ExtractConfig
    parser_engine_rules: _containers.RepeatedCompositeFieldContainer[ParserEngineRule]
    summary_enabled: bool
    ocr: OcrConfig
    def __init__(self, chunking: _Optional[_Union[ChunkingConfig, _Mapping]] = ..., enable_multimodel: _Optional[bool] = ..., vlm: _Optional[_Union[VLMConfig, _Mapping]] = ..., asr: _Optional[_Union[ASRConfig, _Mapping]] = ..., question_generation: _Optional[_Union[QuestionGenerationConfig, _Mapping]] = ..., graph_enabled: _Optional[bool] = ..., extract: _Optional[_Union[ExtractConfig, _Mapping]] = ..., parser_engine_rules: _Optional[_Iterable[_Union[ParserEngineRule, _Mapping]]] = ..., summary_enabled: _Optional[bool] = ..., ocr: _Optional[_Union[OcrConfig, _Mapping]] = ...) -> None: ...
