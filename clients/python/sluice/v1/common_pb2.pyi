from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor

class ParseStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PARSE_STATUS_UNSPECIFIED: _ClassVar[ParseStatus]
    PARSE_STATUS_PENDING: _ClassVar[ParseStatus]
    PARSE_STATUS_PROCESSING: _ClassVar[ParseStatus]
    PARSE_STATUS_FINALIZING: _ClassVar[ParseStatus]
    PARSE_STATUS_COMPLETED: _ClassVar[ParseStatus]
    PARSE_STATUS_FAILED: _ClassVar[ParseStatus]
    PARSE_STATUS_CANCELLED: _ClassVar[ParseStatus]
    PARSE_STATUS_DELETING: _ClassVar[ParseStatus]
    PARSE_STATUS_DRAFT: _ClassVar[ParseStatus]

class EnableStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENABLE_STATUS_UNSPECIFIED: _ClassVar[EnableStatus]
    ENABLE_STATUS_ENABLED: _ClassVar[EnableStatus]
    ENABLE_STATUS_DISABLED: _ClassVar[EnableStatus]

class SummaryStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUMMARY_STATUS_UNSPECIFIED: _ClassVar[SummaryStatus]
    SUMMARY_STATUS_NONE: _ClassVar[SummaryStatus]
    SUMMARY_STATUS_PENDING: _ClassVar[SummaryStatus]
    SUMMARY_STATUS_PROCESSING: _ClassVar[SummaryStatus]
    SUMMARY_STATUS_COMPLETED: _ClassVar[SummaryStatus]
    SUMMARY_STATUS_FAILED: _ClassVar[SummaryStatus]

class KnowledgeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KNOWLEDGE_TYPE_UNSPECIFIED: _ClassVar[KnowledgeType]
    KNOWLEDGE_TYPE_FILE: _ClassVar[KnowledgeType]
    KNOWLEDGE_TYPE_URL: _ClassVar[KnowledgeType]
    KNOWLEDGE_TYPE_MANUAL: _ClassVar[KnowledgeType]
    KNOWLEDGE_TYPE_FAQ: _ClassVar[KnowledgeType]

class Stage(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STAGE_UNSPECIFIED: _ClassVar[Stage]
    STAGE_DOCREADER: _ClassVar[Stage]
    STAGE_CHUNKING: _ClassVar[Stage]
    STAGE_EMBEDDING: _ClassVar[Stage]
    STAGE_MULTIMODAL: _ClassVar[Stage]
    STAGE_POSTPROCESS: _ClassVar[Stage]

class SpanStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPAN_STATUS_UNSPECIFIED: _ClassVar[SpanStatus]
    SPAN_STATUS_PENDING: _ClassVar[SpanStatus]
    SPAN_STATUS_RUNNING: _ClassVar[SpanStatus]
    SPAN_STATUS_DONE: _ClassVar[SpanStatus]
    SPAN_STATUS_FAILED: _ClassVar[SpanStatus]
    SPAN_STATUS_SKIPPED: _ClassVar[SpanStatus]
    SPAN_STATUS_CANCELLED: _ClassVar[SpanStatus]

class SpanKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPAN_KIND_UNSPECIFIED: _ClassVar[SpanKind]
    SPAN_KIND_ROOT: _ClassVar[SpanKind]
    SPAN_KIND_STAGE: _ClassVar[SpanKind]
    SPAN_KIND_STEP: _ClassVar[SpanKind]

class StallState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STALL_STATE_UNSPECIFIED: _ClassVar[StallState]
    STALL_STATE_RUNNING: _ClassVar[StallState]
    STALL_STATE_STALLED: _ClassVar[StallState]
    STALL_STATE_QUEUED: _ClassVar[StallState]
PARSE_STATUS_UNSPECIFIED: ParseStatus
PARSE_STATUS_PENDING: ParseStatus
PARSE_STATUS_PROCESSING: ParseStatus
PARSE_STATUS_FINALIZING: ParseStatus
PARSE_STATUS_COMPLETED: ParseStatus
PARSE_STATUS_FAILED: ParseStatus
PARSE_STATUS_CANCELLED: ParseStatus
PARSE_STATUS_DELETING: ParseStatus
PARSE_STATUS_DRAFT: ParseStatus
ENABLE_STATUS_UNSPECIFIED: EnableStatus
ENABLE_STATUS_ENABLED: EnableStatus
ENABLE_STATUS_DISABLED: EnableStatus
SUMMARY_STATUS_UNSPECIFIED: SummaryStatus
SUMMARY_STATUS_NONE: SummaryStatus
SUMMARY_STATUS_PENDING: SummaryStatus
SUMMARY_STATUS_PROCESSING: SummaryStatus
SUMMARY_STATUS_COMPLETED: SummaryStatus
SUMMARY_STATUS_FAILED: SummaryStatus
KNOWLEDGE_TYPE_UNSPECIFIED: KnowledgeType
KNOWLEDGE_TYPE_FILE: KnowledgeType
KNOWLEDGE_TYPE_URL: KnowledgeType
KNOWLEDGE_TYPE_MANUAL: KnowledgeType
KNOWLEDGE_TYPE_FAQ: KnowledgeType
STAGE_UNSPECIFIED: Stage
STAGE_DOCREADER: Stage
STAGE_CHUNKING: Stage
STAGE_EMBEDDING: Stage
STAGE_MULTIMODAL: Stage
STAGE_POSTPROCESS: Stage
SPAN_STATUS_UNSPECIFIED: SpanStatus
SPAN_STATUS_PENDING: SpanStatus
SPAN_STATUS_RUNNING: SpanStatus
SPAN_STATUS_DONE: SpanStatus
SPAN_STATUS_FAILED: SpanStatus
SPAN_STATUS_SKIPPED: SpanStatus
SPAN_STATUS_CANCELLED: SpanStatus
SPAN_KIND_UNSPECIFIED: SpanKind
SPAN_KIND_ROOT: SpanKind
SPAN_KIND_STAGE: SpanKind
SPAN_KIND_STEP: SpanKind
STALL_STATE_UNSPECIFIED: StallState
STALL_STATE_RUNNING: StallState
STALL_STATE_STALLED: StallState
STALL_STATE_QUEUED: StallState
