import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from sluice.v1 import common_pb2 as _common_pb2
from sluice.v1 import config_pb2 as _config_pb2
from sluice.v1 import knowledge_base_pb2 as _knowledge_base_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ManualStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MANUAL_STATUS_UNSPECIFIED: _ClassVar[ManualStatus]
    MANUAL_STATUS_DRAFT: _ClassVar[ManualStatus]
    MANUAL_STATUS_PUBLISH: _ClassVar[ManualStatus]

class MoveMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOVE_MODE_UNSPECIFIED: _ClassVar[MoveMode]
    MOVE_MODE_REUSE_VECTORS: _ClassVar[MoveMode]
    MOVE_MODE_REPARSE: _ClassVar[MoveMode]

class WatchEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WATCH_EVENT_TYPE_UNSPECIFIED: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_SNAPSHOT: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_SPAN: _ClassVar[WatchEventType]
    WATCH_EVENT_TYPE_END: _ClassVar[WatchEventType]

class ChunkType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHUNK_TYPE_UNSPECIFIED: _ClassVar[ChunkType]
    CHUNK_TYPE_TEXT: _ClassVar[ChunkType]
    CHUNK_TYPE_PARENT_TEXT: _ClassVar[ChunkType]
    CHUNK_TYPE_SUMMARY: _ClassVar[ChunkType]
    CHUNK_TYPE_IMAGE_CAPTION: _ClassVar[ChunkType]
    CHUNK_TYPE_IMAGE_OCR: _ClassVar[ChunkType]
    CHUNK_TYPE_IMAGE_VECTOR: _ClassVar[ChunkType]
    CHUNK_TYPE_TABLE_SUMMARY: _ClassVar[ChunkType]
    CHUNK_TYPE_TABLE_COLUMN: _ClassVar[ChunkType]
    CHUNK_TYPE_FAQ: _ClassVar[ChunkType]
    CHUNK_TYPE_QUESTION: _ClassVar[ChunkType]
MANUAL_STATUS_UNSPECIFIED: ManualStatus
MANUAL_STATUS_DRAFT: ManualStatus
MANUAL_STATUS_PUBLISH: ManualStatus
MOVE_MODE_UNSPECIFIED: MoveMode
MOVE_MODE_REUSE_VECTORS: MoveMode
MOVE_MODE_REPARSE: MoveMode
WATCH_EVENT_TYPE_UNSPECIFIED: WatchEventType
WATCH_EVENT_TYPE_SNAPSHOT: WatchEventType
WATCH_EVENT_TYPE_SPAN: WatchEventType
WATCH_EVENT_TYPE_END: WatchEventType
CHUNK_TYPE_UNSPECIFIED: ChunkType
CHUNK_TYPE_TEXT: ChunkType
CHUNK_TYPE_PARENT_TEXT: ChunkType
CHUNK_TYPE_SUMMARY: ChunkType
CHUNK_TYPE_IMAGE_CAPTION: ChunkType
CHUNK_TYPE_IMAGE_OCR: ChunkType
CHUNK_TYPE_IMAGE_VECTOR: ChunkType
CHUNK_TYPE_TABLE_SUMMARY: ChunkType
CHUNK_TYPE_TABLE_COLUMN: ChunkType
CHUNK_TYPE_FAQ: ChunkType
CHUNK_TYPE_QUESTION: ChunkType

class Knowledge(_message.Message):
    __slots__ = ("id", "tenant_id", "knowledge_base_id", "type", "title", "description", "source", "file_name", "file_type", "file_size", "file_hash", "parse_status", "enable_status", "summary_status", "error_message", "metadata", "tag_ids", "channel", "attempt", "pending_subtasks_count", "process_overrides", "enable_multimodel", "created_at", "updated_at", "processed_at", "last_activity_at", "stall_state", "summary", "summary_stale", "summary_error")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    FILE_HASH_FIELD_NUMBER: _ClassVar[int]
    PARSE_STATUS_FIELD_NUMBER: _ClassVar[int]
    ENABLE_STATUS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    TAG_IDS_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    PENDING_SUBTASKS_COUNT_FIELD_NUMBER: _ClassVar[int]
    PROCESS_OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    ENABLE_MULTIMODEL_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    PROCESSED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTIVITY_AT_FIELD_NUMBER: _ClassVar[int]
    STALL_STATE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_STALE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_ERROR_FIELD_NUMBER: _ClassVar[int]
    id: str
    tenant_id: str
    knowledge_base_id: str
    type: _common_pb2.KnowledgeType
    title: str
    description: str
    source: str
    file_name: str
    file_type: str
    file_size: int
    file_hash: str
    parse_status: _common_pb2.ParseStatus
    enable_status: _common_pb2.EnableStatus
    summary_status: _common_pb2.SummaryStatus
    error_message: str
    metadata: _containers.ScalarMap[str, str]
    tag_ids: _containers.RepeatedScalarFieldContainer[str]
    channel: str
    attempt: int
    pending_subtasks_count: int
    process_overrides: _config_pb2.ProcessConfig
    enable_multimodel: bool
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    processed_at: _timestamp_pb2.Timestamp
    last_activity_at: _timestamp_pb2.Timestamp
    stall_state: _common_pb2.StallState
    summary: str
    summary_stale: bool
    summary_error: str
    def __init__(self, id: _Optional[str] = ..., tenant_id: _Optional[str] = ..., knowledge_base_id: _Optional[str] = ..., type: _Optional[_Union[_common_pb2.KnowledgeType, str]] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., source: _Optional[str] = ..., file_name: _Optional[str] = ..., file_type: _Optional[str] = ..., file_size: _Optional[int] = ..., file_hash: _Optional[str] = ..., parse_status: _Optional[_Union[_common_pb2.ParseStatus, str]] = ..., enable_status: _Optional[_Union[_common_pb2.EnableStatus, str]] = ..., summary_status: _Optional[_Union[_common_pb2.SummaryStatus, str]] = ..., error_message: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., tag_ids: _Optional[_Iterable[str]] = ..., channel: _Optional[str] = ..., attempt: _Optional[int] = ..., pending_subtasks_count: _Optional[int] = ..., process_overrides: _Optional[_Union[_config_pb2.ProcessConfig, _Mapping]] = ..., enable_multimodel: _Optional[bool] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., processed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_activity_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., stall_state: _Optional[_Union[_common_pb2.StallState, str]] = ..., summary: _Optional[str] = ..., summary_stale: _Optional[bool] = ..., summary_error: _Optional[str] = ...) -> None: ...

class FileHeader(_message.Message):
    __slots__ = ("knowledge_base_id", "file_name", "metadata", "tag_ids", "enable_multimodel", "process_config", "title", "channel", "size", "md5")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    TAG_IDS_FIELD_NUMBER: _ClassVar[int]
    ENABLE_MULTIMODEL_FIELD_NUMBER: _ClassVar[int]
    PROCESS_CONFIG_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    MD5_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    file_name: str
    metadata: _containers.ScalarMap[str, str]
    tag_ids: _containers.RepeatedScalarFieldContainer[str]
    enable_multimodel: bool
    process_config: _config_pb2.ProcessConfig
    title: str
    channel: str
    size: int
    md5: str
    def __init__(self, knowledge_base_id: _Optional[str] = ..., file_name: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., tag_ids: _Optional[_Iterable[str]] = ..., enable_multimodel: _Optional[bool] = ..., process_config: _Optional[_Union[_config_pb2.ProcessConfig, _Mapping]] = ..., title: _Optional[str] = ..., channel: _Optional[str] = ..., size: _Optional[int] = ..., md5: _Optional[str] = ...) -> None: ...

class CreateFromFileRequest(_message.Message):
    __slots__ = ("header", "data")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    header: FileHeader
    data: bytes
    def __init__(self, header: _Optional[_Union[FileHeader, _Mapping]] = ..., data: _Optional[bytes] = ...) -> None: ...

class CreateFromFileResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...

class CreateFromURLRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "url", "file_name", "file_type", "enable_multimodel", "title", "tag_ids", "channel", "process_config")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_MULTIMODEL_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TAG_IDS_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    PROCESS_CONFIG_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    url: str
    file_name: str
    file_type: str
    enable_multimodel: bool
    title: str
    tag_ids: _containers.RepeatedScalarFieldContainer[str]
    channel: str
    process_config: _config_pb2.ProcessConfig
    def __init__(self, knowledge_base_id: _Optional[str] = ..., url: _Optional[str] = ..., file_name: _Optional[str] = ..., file_type: _Optional[str] = ..., enable_multimodel: _Optional[bool] = ..., title: _Optional[str] = ..., tag_ids: _Optional[_Iterable[str]] = ..., channel: _Optional[str] = ..., process_config: _Optional[_Union[_config_pb2.ProcessConfig, _Mapping]] = ...) -> None: ...

class CreateFromURLResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...

class CreateManualRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "title", "content", "status", "tag_ids", "channel", "process_config")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TAG_IDS_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    PROCESS_CONFIG_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    title: str
    content: str
    status: ManualStatus
    tag_ids: _containers.RepeatedScalarFieldContainer[str]
    channel: str
    process_config: _config_pb2.ProcessConfig
    def __init__(self, knowledge_base_id: _Optional[str] = ..., title: _Optional[str] = ..., content: _Optional[str] = ..., status: _Optional[_Union[ManualStatus, str]] = ..., tag_ids: _Optional[_Iterable[str]] = ..., channel: _Optional[str] = ..., process_config: _Optional[_Union[_config_pb2.ProcessConfig, _Mapping]] = ...) -> None: ...

class CreateManualResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...

class UpdateManualRequest(_message.Message):
    __slots__ = ("id", "title", "content", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    content: str
    status: ManualStatus
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., content: _Optional[str] = ..., status: _Optional[_Union[ManualStatus, str]] = ...) -> None: ...

class UpdateManualResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...

class GetKnowledgeRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetKnowledgeResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...

class ListKnowledgeRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "page_size", "page_token", "parse_statuses", "keyword", "file_type", "tag_id")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PARSE_STATUSES_FIELD_NUMBER: _ClassVar[int]
    KEYWORD_FIELD_NUMBER: _ClassVar[int]
    FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    TAG_ID_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    page_size: int
    page_token: str
    parse_statuses: _containers.RepeatedScalarFieldContainer[_common_pb2.ParseStatus]
    keyword: str
    file_type: str
    tag_id: str
    def __init__(self, knowledge_base_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., parse_statuses: _Optional[_Iterable[_Union[_common_pb2.ParseStatus, str]]] = ..., keyword: _Optional[str] = ..., file_type: _Optional[str] = ..., tag_id: _Optional[str] = ...) -> None: ...

class ListKnowledgeResponse(_message.Message):
    __slots__ = ("knowledges", "next_page_token", "total")
    KNOWLEDGES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    knowledges: _containers.RepeatedCompositeFieldContainer[Knowledge]
    next_page_token: str
    total: int
    def __init__(self, knowledges: _Optional[_Iterable[_Union[Knowledge, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...

class ReparseRequest(_message.Message):
    __slots__ = ("id", "process_config")
    ID_FIELD_NUMBER: _ClassVar[int]
    PROCESS_CONFIG_FIELD_NUMBER: _ClassVar[int]
    id: str
    process_config: _config_pb2.ProcessConfig
    def __init__(self, id: _Optional[str] = ..., process_config: _Optional[_Union[_config_pb2.ProcessConfig, _Mapping]] = ...) -> None: ...

class ReparseResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...

class CancelParseRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class CancelParseResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...

class BatchReparseRequest(_message.Message):
    __slots__ = ("ids", "knowledge_base_id")
    IDS_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    knowledge_base_id: str
    def __init__(self, ids: _Optional[_Iterable[str]] = ..., knowledge_base_id: _Optional[str] = ...) -> None: ...

class BatchReparseResponse(_message.Message):
    __slots__ = ("job_id", "accepted")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    accepted: int
    def __init__(self, job_id: _Optional[str] = ..., accepted: _Optional[int] = ...) -> None: ...

class DeleteKnowledgeRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteKnowledgeResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BatchDeleteKnowledgeRequest(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class BatchDeleteKnowledgeResponse(_message.Message):
    __slots__ = ("deleted", "failed_ids")
    DELETED_FIELD_NUMBER: _ClassVar[int]
    FAILED_IDS_FIELD_NUMBER: _ClassVar[int]
    deleted: int
    failed_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, deleted: _Optional[int] = ..., failed_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class MoveKnowledgeRequest(_message.Message):
    __slots__ = ("ids", "target_knowledge_base_id", "mode")
    IDS_FIELD_NUMBER: _ClassVar[int]
    TARGET_KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    target_knowledge_base_id: str
    mode: MoveMode
    def __init__(self, ids: _Optional[_Iterable[str]] = ..., target_knowledge_base_id: _Optional[str] = ..., mode: _Optional[_Union[MoveMode, str]] = ...) -> None: ...

class MoveKnowledgeResponse(_message.Message):
    __slots__ = ("job_id", "mode")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    mode: MoveMode
    def __init__(self, job_id: _Optional[str] = ..., mode: _Optional[_Union[MoveMode, str]] = ...) -> None: ...

class GetMoveProgressRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class WatchMoveProgressRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class MoveFailure(_message.Message):
    __slots__ = ("knowledge_id", "error_message")
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    error_message: str
    def __init__(self, knowledge_id: _Optional[str] = ..., error_message: _Optional[str] = ...) -> None: ...

class MoveProgress(_message.Message):
    __slots__ = ("job_id", "status", "mode", "source_knowledge_base_id", "target_knowledge_base_id", "total", "done", "failed", "failures", "error_message")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    status: _knowledge_base_pb2.JobStatus
    mode: MoveMode
    source_knowledge_base_id: str
    target_knowledge_base_id: str
    total: int
    done: int
    failed: int
    failures: _containers.RepeatedCompositeFieldContainer[MoveFailure]
    error_message: str
    def __init__(self, job_id: _Optional[str] = ..., status: _Optional[_Union[_knowledge_base_pb2.JobStatus, str]] = ..., mode: _Optional[_Union[MoveMode, str]] = ..., source_knowledge_base_id: _Optional[str] = ..., target_knowledge_base_id: _Optional[str] = ..., total: _Optional[int] = ..., done: _Optional[int] = ..., failed: _Optional[int] = ..., failures: _Optional[_Iterable[_Union[MoveFailure, _Mapping]]] = ..., error_message: _Optional[str] = ...) -> None: ...

class GetMoveProgressResponse(_message.Message):
    __slots__ = ("progress",)
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    progress: MoveProgress
    def __init__(self, progress: _Optional[_Union[MoveProgress, _Mapping]] = ...) -> None: ...

class WatchMoveProgressResponse(_message.Message):
    __slots__ = ("progress",)
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    progress: MoveProgress
    def __init__(self, progress: _Optional[_Union[MoveProgress, _Mapping]] = ...) -> None: ...

class Span(_message.Message):
    __slots__ = ("id", "knowledge_id", "attempt", "parent_id", "name", "kind", "stage", "status", "input", "output", "error_code", "error_message", "started_at", "ended_at", "duration_ms", "updated_at", "sequence")
    ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    knowledge_id: str
    attempt: int
    parent_id: str
    name: str
    kind: _common_pb2.SpanKind
    stage: _common_pb2.Stage
    status: _common_pb2.SpanStatus
    input: _struct_pb2.Struct
    output: _struct_pb2.Struct
    error_code: str
    error_message: str
    started_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    duration_ms: int
    updated_at: _timestamp_pb2.Timestamp
    sequence: int
    def __init__(self, id: _Optional[str] = ..., knowledge_id: _Optional[str] = ..., attempt: _Optional[int] = ..., parent_id: _Optional[str] = ..., name: _Optional[str] = ..., kind: _Optional[_Union[_common_pb2.SpanKind, str]] = ..., stage: _Optional[_Union[_common_pb2.Stage, str]] = ..., status: _Optional[_Union[_common_pb2.SpanStatus, str]] = ..., input: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., output: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., error_code: _Optional[str] = ..., error_message: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., duration_ms: _Optional[int] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., sequence: _Optional[int] = ...) -> None: ...

class GetSpansRequest(_message.Message):
    __slots__ = ("knowledge_id", "attempt")
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    attempt: int
    def __init__(self, knowledge_id: _Optional[str] = ..., attempt: _Optional[int] = ...) -> None: ...

class GetSpansResponse(_message.Message):
    __slots__ = ("knowledge_id", "attempt", "spans", "parse_status", "last_activity_at", "stall_state", "sequence")
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    SPANS_FIELD_NUMBER: _ClassVar[int]
    PARSE_STATUS_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTIVITY_AT_FIELD_NUMBER: _ClassVar[int]
    STALL_STATE_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    attempt: int
    spans: _containers.RepeatedCompositeFieldContainer[Span]
    parse_status: _common_pb2.ParseStatus
    last_activity_at: _timestamp_pb2.Timestamp
    stall_state: _common_pb2.StallState
    sequence: int
    def __init__(self, knowledge_id: _Optional[str] = ..., attempt: _Optional[int] = ..., spans: _Optional[_Iterable[_Union[Span, _Mapping]]] = ..., parse_status: _Optional[_Union[_common_pb2.ParseStatus, str]] = ..., last_activity_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., stall_state: _Optional[_Union[_common_pb2.StallState, str]] = ..., sequence: _Optional[int] = ...) -> None: ...

class WatchSpansRequest(_message.Message):
    __slots__ = ("knowledge_id", "attempt", "after_sequence", "after_attempt")
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    AFTER_ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    attempt: int
    after_sequence: int
    after_attempt: int
    def __init__(self, knowledge_id: _Optional[str] = ..., attempt: _Optional[int] = ..., after_sequence: _Optional[int] = ..., after_attempt: _Optional[int] = ...) -> None: ...

class WatchSpansResponse(_message.Message):
    __slots__ = ("type", "attempt", "spans", "parse_status", "enable_status", "error_message", "sequence")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    SPANS_FIELD_NUMBER: _ClassVar[int]
    PARSE_STATUS_FIELD_NUMBER: _ClassVar[int]
    ENABLE_STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    type: WatchEventType
    attempt: int
    spans: _containers.RepeatedCompositeFieldContainer[Span]
    parse_status: _common_pb2.ParseStatus
    enable_status: _common_pb2.EnableStatus
    error_message: str
    sequence: int
    def __init__(self, type: _Optional[_Union[WatchEventType, str]] = ..., attempt: _Optional[int] = ..., spans: _Optional[_Iterable[_Union[Span, _Mapping]]] = ..., parse_status: _Optional[_Union[_common_pb2.ParseStatus, str]] = ..., enable_status: _Optional[_Union[_common_pb2.EnableStatus, str]] = ..., error_message: _Optional[str] = ..., sequence: _Optional[int] = ...) -> None: ...

class Chunk(_message.Message):
    __slots__ = ("id", "knowledge_id", "knowledge_base_id", "chunk_index", "chunk_type", "content", "start_at", "end_at", "parent_chunk_id", "pre_chunk_id", "next_chunk_id", "is_enabled", "image_info", "metadata")
    ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    CHUNK_INDEX_FIELD_NUMBER: _ClassVar[int]
    CHUNK_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    START_AT_FIELD_NUMBER: _ClassVar[int]
    END_AT_FIELD_NUMBER: _ClassVar[int]
    PARENT_CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    PRE_CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    NEXT_CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    IS_ENABLED_FIELD_NUMBER: _ClassVar[int]
    IMAGE_INFO_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    id: str
    knowledge_id: str
    knowledge_base_id: str
    chunk_index: int
    chunk_type: ChunkType
    content: str
    start_at: int
    end_at: int
    parent_chunk_id: str
    pre_chunk_id: str
    next_chunk_id: str
    is_enabled: bool
    image_info: _struct_pb2.Struct
    metadata: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., knowledge_id: _Optional[str] = ..., knowledge_base_id: _Optional[str] = ..., chunk_index: _Optional[int] = ..., chunk_type: _Optional[_Union[ChunkType, str]] = ..., content: _Optional[str] = ..., start_at: _Optional[int] = ..., end_at: _Optional[int] = ..., parent_chunk_id: _Optional[str] = ..., pre_chunk_id: _Optional[str] = ..., next_chunk_id: _Optional[str] = ..., is_enabled: _Optional[bool] = ..., image_info: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ListChunksRequest(_message.Message):
    __slots__ = ("knowledge_id", "page_size", "page_token")
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    page_size: int
    page_token: str
    def __init__(self, knowledge_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListChunksResponse(_message.Message):
    __slots__ = ("chunks", "next_page_token", "total")
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    chunks: _containers.RepeatedCompositeFieldContainer[Chunk]
    next_page_token: str
    total: int
    def __init__(self, chunks: _Optional[_Iterable[_Union[Chunk, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...

class RegenerateSummaryRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class RegenerateSummaryResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...

class UpdateChunkRequest(_message.Message):
    __slots__ = ("chunk_id", "content")
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    chunk_id: str
    content: str
    def __init__(self, chunk_id: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...

class UpdateChunkResponse(_message.Message):
    __slots__ = ("chunk",)
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    chunk: Chunk
    def __init__(self, chunk: _Optional[_Union[Chunk, _Mapping]] = ...) -> None: ...

class SetChunkEnabledRequest(_message.Message):
    __slots__ = ("chunk_id", "enabled")
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    chunk_id: str
    enabled: bool
    def __init__(self, chunk_id: _Optional[str] = ..., enabled: _Optional[bool] = ...) -> None: ...

class SetChunkEnabledResponse(_message.Message):
    __slots__ = ("chunk",)
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    chunk: Chunk
    def __init__(self, chunk: _Optional[_Union[Chunk, _Mapping]] = ...) -> None: ...

class UpdateKnowledgeMetadataRequest(_message.Message):
    __slots__ = ("knowledge_id", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, knowledge_id: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class UpdateKnowledgeMetadataResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...

class SetKnowledgeTagsRequest(_message.Message):
    __slots__ = ("knowledge_id", "tag_ids")
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    TAG_IDS_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    tag_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, knowledge_id: _Optional[str] = ..., tag_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class SetKnowledgeTagsResponse(_message.Message):
    __slots__ = ("knowledge",)
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    knowledge: Knowledge
    def __init__(self, knowledge: _Optional[_Union[Knowledge, _Mapping]] = ...) -> None: ...
